import Ajv, { type ErrorObject, type SchemaObject } from 'ajv';
import { isISO8601, isUUID, maxLength, minLength } from 'class-validator';
import { DIRECTIONS, DOCUMENT_MODES } from './document.types';

/**
 * DocumentInputDto's rules as a JSON Schema, for a compiled validator (ajv): checking 25,000
 * documents with class-validator took seconds. A compiled check only says yes or no; the DTOs
 * still word the problems. So a schema here must never accept what its DTO refuses: where
 * JSON Schema's meaning differs from class-validator's (string length, UUID, ISO 8601), the
 * keyword calls the function class-validator itself uses.
 */
/** Characters class-validator's length does not count one each: surrogates, variation selectors. */
const COUNTED_APART = /[\uD800-\uDFFF]|\uFE0E|\uFE0F/;

export function newDtoAjv(): Ajv {
  // strictNumbers: NaN and Infinity are not numbers (IsNumber with allowNaN/allowInfinity false, IsInt).
  // strictRequired off: `required` in anyOf/if says "given", of fields the object's own schema lists.
  const ajv = new Ajv({ strict: true, strictRequired: false, strictNumbers: true, allowUnionTypes: true });
  ajv.addFormat('uuid-all', { type: 'string', validate: (value: string) => isUUID(value, 'all') });
  ajv.addFormat('iso8601-strict', { type: 'string', validate: (value: string) => isISO8601(value, { strict: true }) });
  // class-validator counts a surrogate pair as one character and leaves out variation selectors; a
  // text with neither (nearly every one) is as long as it looks, without its two regex matches.
  ajv.addKeyword({
    keyword: 'textLength',
    type: 'string',
    schemaType: 'array',
    validate: ([min, max]: [number, number | null], value: string) =>
      COUNTED_APART.test(value)
        ? (min === 0 || minLength(value, min)) && (max === null || maxLength(value, max))
        : value.length >= min && (max === null || value.length <= max),
  });
  // IsNotBefore: only when both are strings (an ISO 8601 check refuses anything else).
  ajv.addKeyword({
    keyword: 'endNotBefore',
    type: 'object',
    schemaType: 'boolean',
    validate: (_: boolean, range: { begin?: unknown; end?: unknown }) =>
      range.end === undefined ||
      range.end === null ||
      typeof range.end !== 'string' ||
      typeof range.begin !== 'string' ||
      Date.parse(range.end) >= Date.parse(range.begin),
  });
  return ajv;
}

/**
 * A compiled check's refusal in words, for what the DTO cannot word (a field named like what every
 * object inherits): its deepest error (`anyOf` also reports each branch it tried, a level above) at
 * `prefix` + its path (`operations[0].document.valueOf: unknown field`).
 */
export function schemaProblem(errors: readonly ErrorObject[] | null | undefined, prefix = ''): string {
  const error = errors?.reduce((a, b) => (b.instancePath.length > a.instancePath.length ? b : a));
  const path = (error?.instancePath ?? '').replace(/\/([^/]*)/g, (_, part: string) =>
    /^\d+$/.test(part) ? `[${part}]` : `.${part.replace(/~1/g, '/').replace(/~0/g, '~')}`,
  );
  const at = `${prefix}${path}`.replace(/^\./, '');
  if (error?.keyword === 'additionalProperties') {
    return `${at ? `${at}.` : ''}${String(error.params.additionalProperty)}: unknown field`;
  }
  return `${at || 'body'}: ${error?.message ?? 'invalid'}`;
}

/** A string whose length class-validator's MinLength/MaxLength would accept. */
export const textSchema = (min: number, max: number | null = null, nullable = false): SchemaObject => ({
  type: nullable ? ['string', 'null'] : 'string',
  textLength: [min, max],
});

/** A text id that is no dot segment (NotADotSegment): what names a document or booking in a URL path. */
export const pathIdSchema = (min: number, max: number | null = null): SchemaObject => ({
  ...textSchema(min, max),
  not: { enum: ['.', '..'] },
});

/** IsUUID('all'). */
export const uuidSchema = (nullable = false): SchemaObject => ({
  type: nullable ? ['string', 'null'] : 'string',
  format: 'uuid-all',
});

/** IsOptional() in front of an object's checks: null counts as absent. */
export const nullOr = (schema: SchemaObject): SchemaObject => ({ anyOf: [{ type: 'null' }, schema] });

/** An object with exactly these fields (forbidNonWhitelisted). */
export const objectSchema = (
  properties: Record<string, SchemaObject | boolean>,
  required: string[] = [],
): SchemaObject => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...(required.length ? { required } : {}),
});

/** OrgRefDto: `{id}` alone, or `{coreName, coreId}` (a null counts as given: it is not undefined). */
const orgRef: SchemaObject = {
  ...objectSchema({ id: true, coreName: true, coreId: true }),
  if: { required: ['id'] },
  then: { properties: { id: uuidSchema() }, not: { anyOf: [{ required: ['coreName'] }, { required: ['coreId'] }] } },
  else: { required: ['coreName', 'coreId'], properties: { coreName: textSchema(1, 100), coreId: textSchema(1, 100) } },
};

const load = objectSchema(
  {
    name: textSchema(1, 100),
    quantity: { type: 'number', minimum: 0 },
    loadTag: textSchema(0, 100, true),
  },
  ['name', 'quantity'],
);

const dateRange: SchemaObject = {
  ...objectSchema({
    begin: { type: ['string', 'null'], format: 'iso8601-strict' },
    end: { type: ['string', 'null'], format: 'iso8601-strict' },
  }),
  endNotBefore: true,
};

const named = objectSchema({ name: textSchema(1, 100) }, ['name']);

/** DocumentInputDto. */
export const documentInputSchema: SchemaObject = {
  ...objectSchema(
    {
      id: pathIdSchema(1, 100),
      direction: { enum: [...DIRECTIONS] },
      // Checked whenever given; required when neither offsite nor carrier is (anyOf below).
      occupant: orgRef,
      offsite: nullOr(orgRef),
      carrier: nullOr(orgRef),
      loads: { type: ['array', 'null'], maxItems: 10000, items: load },
      settings: nullOr(
        objectSchema({ mode: { enum: [null, ...DOCUMENT_MODES] }, maxUses: { type: ['integer', 'null'], minimum: 1 } }),
      ),
      validDates: nullOr(dateRange),
      preferredDates: nullOr(dateRange),
      description: textSchema(0, 2000, true),
      attributes: nullOr({ type: 'object', additionalProperties: { type: ['string', 'number', 'boolean'] } }),
      status: nullOr(named),
      type: nullOr(named),
    },
    ['id', 'direction'],
  ),
  anyOf: [{ required: ['occupant'] }, { required: ['offsite'] }, { required: ['carrier'] }],
};
