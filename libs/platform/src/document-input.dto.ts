import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsIn,
  IsNotIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  ValidationArguments,
  ValidationError,
  validateSync,
} from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { DIRECTIONS, DOCUMENT_MODES, Direction, DocumentMode } from './document.types';

/** OrgRef: exactly one of `{id}` or `{coreName, coreId}`. */
export class OrgRefDto {
  @ValidateIf((o: OrgRefDto) => o.id !== undefined || (o.coreName === undefined && o.coreId === undefined))
  @IsUUID('all', { message: '$property must be a UUID (or give coreName and coreId instead)' })
  @IsSoleOrgRefForm()
  id?: string;

  @ValidateIf((o: OrgRefDto) => o.id === undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  coreName?: string;

  @ValidateIf((o: OrgRefDto) => o.id === undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  coreId?: string;
}

export class LoadDto {
  @IsString() @MinLength(1) @MaxLength(100) name: string;
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) quantity: number;
  @IsOptional() @IsString() @MaxLength(100) loadTag?: string;
}

export class DocumentSettingsDto {
  @IsOptional() @IsIn(DOCUMENT_MODES) mode?: DocumentMode;
  @IsOptional() @IsInt() @Min(1) maxUses?: number;
}

export class DateRangeDto {
  @IsOptional() @IsISO8601({ strict: true }) begin?: string;
  @IsOptional() @IsISO8601({ strict: true }) @IsNotBefore('begin') end?: string;
}

export class NamedDto {
  @IsString() @MinLength(1) @MaxLength(100) name: string;
}

/** Ids that a URL path reads as a dot segment (`/documents/..` is the organisation): no document or booking is named so. */
export const DOT_SEGMENTS = ['.', '..'];
/** IsNotIn(DOT_SEGMENTS), worded. */
export const NotADotSegment = () =>
  IsNotIn(DOT_SEGMENTS, { message: '$property cannot be "." or "..": a URL path reads them as no id at all' });

/** DocumentInput (platform-interface.md): validated field by field so every 400 names its field. */
export class DocumentInputDto {
  @IsString() @MinLength(1) @MaxLength(100) @NotADotSegment() id: string;
  @IsIn(DIRECTIONS) direction: Direction;

  @ValidateIf((o: DocumentInputDto) => o.occupant !== undefined || (o.offsite === undefined && o.carrier === undefined))
  @IsObject({ message: 'at least one of occupant, offsite, carrier must be provided' })
  @ValidateNested()
  @Type(() => OrgRefDto)
  occupant?: OrgRefDto;

  @IsOptional() @IsObject() @ValidateNested() @Type(() => OrgRefDto) offsite?: OrgRefDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => OrgRefDto) carrier?: OrgRefDto;
  @IsOptional() @ArrayMaxSize(10000) @ValidateNested({ each: true }) @Type(() => LoadDto) loads?: LoadDto[];
  @IsOptional() @IsObject() @ValidateNested() @Type(() => DocumentSettingsDto) settings?: DocumentSettingsDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => DateRangeDto) validDates?: DateRangeDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => DateRangeDto) preferredDates?: DateRangeDto;
  @IsOptional() @IsString() @MaxLength(2000) description?: string;
  @IsOptional() @IsScalarRecord() attributes?: Record<string, string | number | boolean>;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => NamedDto) status?: NamedDto;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => NamedDto) type?: NamedDto;
}

/** A flat object of string, number or boolean values (document attributes). */
function IsScalarRecord() {
  return (object: object, propertyName: string) =>
    registerDecorator({
      // Stryker disable next-line StringLiteral: equivalent, the name only keys the message (one custom check a field)
      name: 'isScalarRecord',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must be an object of string, number or boolean values` },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.values(value).every((v) => ['string', 'number', 'boolean'].includes(typeof v)),
      },
    });
}

/** An OrgRef given by id carries no Core ID as well. */
function IsSoleOrgRefForm() {
  return (object: object, propertyName: string) =>
    registerDecorator({
      // Stryker disable next-line StringLiteral: equivalent, the name only keys the message (one custom check a field)
      name: 'isSoleOrgRefForm',
      target: object.constructor,
      propertyName,
      options: { message: 'an OrgRef has exactly one form: id, or coreName with coreId, not both' },
      validator: {
        validate: (_value: unknown, args: ValidationArguments) => {
          const ref = args.object as OrgRefDto;
          return ref.coreName === undefined && ref.coreId === undefined;
        },
      },
    });
}

/** The end of a range is not before its begin. */
function IsNotBefore(beginProperty: string) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      // Stryker disable next-line StringLiteral: equivalent, the name only keys the message (one custom check a field)
      name: 'isNotBefore',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must not be before ${beginProperty}` },
      validator: {
        validate: (value: unknown, args: ValidationArguments) => {
          const begin = (args.object as Record<string, unknown>)[beginProperty];
          return typeof value !== 'string' || typeof begin !== 'string' || Date.parse(value) >= Date.parse(begin);
        },
      },
    });
}

/** One problem with one field; `field` is a path such as `loads[2].quantity` or `apiKeys[0].keyEnv`. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** Constraints that say what a field IS; when one fails, the others (length, range) are noise. */
const TYPE_CONSTRAINTS = [
  // Stryker disable next-line StringLiteral: equivalent, a field that should not exist fails nothing else
  'whitelistValidation',
  'isArray',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isObject',
  'isUuid',
  'nestedValidation',
  'isIso8601',
];

/** The one constraint worth reporting for a field: its type first, then whatever failed first. */
function mainConstraint(constraints: Record<string, string>): string | undefined {
  const key = TYPE_CONSTRAINTS.find((name) => name in constraints) ?? Object.keys(constraints)[0];
  return key === undefined ? undefined : constraints[key];
}

/** Flattens class-validator errors into one problem per field, each with its path (`loads[2].quantity`). */
export function fieldProblems(errors: ValidationError[], prefix = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = /^\d+$/.test(error.property)
      ? `${prefix.replace(/\.$/, '')}[${error.property}]`
      : `${prefix}${error.property}`;
    const text = mainConstraint(error.constraints ?? {});
    const own =
      text === undefined
        ? []
        : [
            {
              field,
              message: text.startsWith(error.property)
                ? `${field}${text.slice(error.property.length)}`
                : `${field}: ${text}`,
            },
          ];
    return [...own, ...fieldProblems(error.children ?? [], `${field}.`)];
  });
}

/** The same problems as sentences, each starting with its field path. */
export const describeValidationErrors = (errors: ValidationError[], prefix = ''): string[] =>
  fieldProblems(errors, prefix).map((p) => p.message);

/**
 * The first string (value or field name) in plain JSON that the audit store cannot hold, one with
 * the NUL character or an unpaired surrogate, as a problem naming its path
 * (`operations[0].document.id`); null when there is none. Checked where the sender can be told.
 */
export function unstorableText(plain: unknown, path = ''): string | null {
  // Nearly always none: looked for first without naming paths (a path a field took ~100 ms of a
  // 25,000-document message's 202).
  return storableText(plain) ? null : firstUnstorable(plain, path);
}

/** Whether every string in plain JSON, values and field names, can be stored. */
function storableText(plain: unknown): boolean {
  if (typeof plain === 'string') {
    return !plain.includes('\u0000') && (plain as string & { isWellFormed(): boolean }).isWellFormed();
  }
  if (typeof plain !== 'object' || plain === null) {
    return true;
  }
  if (Array.isArray(plain)) {
    for (let i = 0; i < plain.length; i++) {
      if (!storableText(plain[i])) {
        return false;
      }
    }
    return true;
  }
  const keys = Object.keys(plain);
  for (let i = 0; i < keys.length; i++) {
    if (!storableText(keys[i]) || !storableText((plain as Record<string, unknown>)[keys[i]])) {
      return false;
    }
  }
  return true;
}

function firstUnstorable(plain: unknown, path: string): string | null {
  const at = path || 'body';
  if (typeof plain === 'string') {
    if (plain.includes('\u0000')) {
      return `${at} contains the NUL character (\\u0000), which cannot be stored`;
    }
    // An unpaired UTF-16 surrogate: JSON can carry one (`"\\ud800"`), Postgres text and jsonb cannot.
    if (!(plain as string & { isWellFormed(): boolean }).isWellFormed()) {
      return `${at} contains an unpaired UTF-16 surrogate (not valid Unicode), which cannot be stored`;
    }
    return null;
  }
  if (typeof plain !== 'object' || plain === null) {
    return null;
  }
  if (Array.isArray(plain)) {
    for (let i = 0; i < plain.length; i++) {
      const problem = firstUnstorable(plain[i], `${at}[${i}]`);
      if (problem) {
        return problem;
      }
    }
    return null;
  }
  for (const [key, value] of Object.entries(plain)) {
    const field = path ? `${path}.${key}` : key;
    const problem =
      firstUnstorable(key, `${at}: the field name ${JSON.stringify(key)}`) ?? firstUnstorable(value, field);
    if (problem) {
      return problem;
    }
  }
  return null;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; problems: string[] };

/**
 * The path of the first field named like a property every object inherits (`constructor`,
 * `valueOf`), which class-validator's whitelist finds on every object and class-transformer may
 * throw on; undefined when there is none.
 */
export function inheritedName(value: unknown, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  for (const [key, inner] of Object.entries(value)) {
    const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    if (!Array.isArray(value) && key in Object.prototype) {
      return at;
    }
    const found = inheritedName(inner, at);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

/**
 * Validates plain JSON against a DTO class: unknown fields are refused by name, nothing is coerced.
 * JSON class-transformer cannot read (it throws on a `constructor` holding an object) is refused
 * without problems listed: the caller words them (its compiled schema refuses such JSON too).
 */
export function validatePlain<T extends object>(cls: new () => T, plain: unknown, prefix = ''): Validated<T> {
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) {
    return { ok: false, problems: [`${prefix || 'body'} must be a JSON object`] };
  }
  let instance: T;
  let errors: ValidationError[];
  try {
    instance = plainToInstance(cls, plain);
    errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: false });
  } catch {
    return { ok: false, problems: [] };
  }
  return errors.length === 0
    ? { ok: true, value: instance }
    : { ok: false, problems: describeValidationErrors(errors, prefix) };
}
