import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, ValidateNested } from 'class-validator';
import { DocumentInputDto, NamedDto, unstorableText, validatePlain } from './document-input.dto';

const valid = {
  id: 'PO-1',
  direction: 'Inbound',
  occupant: { coreName: 'ACME', coreId: 'DC01' },
  offsite: { id: '3f1d8a9e-2b4c-4d5e-8f60-718293a4b5c6' },
  loads: [{ name: 'Pallet', quantity: 3, loadTag: 'SKU-1' }],
  settings: { mode: 'Fixed', maxUses: 2 },
  validDates: { begin: '2026-11-22T00:00:00Z', end: '2026-11-23T00:00:00Z' },
  attributes: { ISA13: '000000001', urgent: true },
  status: { name: 'Original' },
  type: { name: 'PurchaseOrder' },
};

const problemsOf = (input: unknown) => {
  const result = validatePlain(DocumentInputDto, input);
  return result.ok ? [] : result.problems;
};

describe('DocumentInputDto', () => {
  it('accepts a complete valid document', () => {
    expect(problemsOf(valid)).toEqual([]);
  });

  it('names each offending field with its path', () => {
    const problems = problemsOf({
      ...valid,
      direction: 'Sideways',
      loads: [
        { name: 'Pallet', quantity: 1 },
        { name: 'Case', quantity: 'many' },
      ],
      validDates: { begin: '2026-11-23T00:00:00Z', end: '2026-11-22T00:00:00Z' },
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^direction must be one of/),
        expect.stringMatching(/^loads\[1\]\.quantity/),
        expect.stringMatching(/^validDates\.end must not be before begin/),
      ]),
    );
    expect(problems).toHaveLength(3);
  });

  it('requires at least one party', () => {
    const { occupant, offsite, ...noParties } = valid;
    expect(problemsOf(noParties)).toEqual([expect.stringMatching(/at least one of occupant, offsite, carrier/)]);
  });

  it('refuses an OrgRef with both forms, or with half a Core ID', () => {
    expect(problemsOf({ ...valid, carrier: { id: valid.offsite.id, coreId: 'X' } })).toEqual([
      expect.stringMatching(/^carrier\.id.*exactly one form/),
    ]);
    expect(problemsOf({ ...valid, carrier: { coreId: 'X' } })).toEqual([expect.stringMatching(/^carrier\.coreName/)]);
  });

  it('refuses unknown fields by name and non-object bodies', () => {
    expect(problemsOf({ ...valid, colour: 'red' })).toEqual(['colour: property colour should not exist']);
    expect(problemsOf([valid])).toEqual(['body must be a JSON object']);
  });
});

describe('DocumentInputDto: each check at its edge', () => {
  const UUID = '3f1d8a9e-2b4c-4d5e-8f60-718293a4b5c6';

  it('takes attributes of strings, numbers and booleans only, as an object', () => {
    expect(problemsOf({ ...valid, attributes: { code: 'A', count: 3, urgent: false } })).toEqual([]);
    const refused = ['attributes must be an object of string, number or boolean values'];
    for (const attributes of [{ nested: { a: 1 } }, { code: 'A', gone: null }, ['A'], 'A', 7]) {
      expect({ attributes, problems: problemsOf({ ...valid, attributes }) }).toEqual({ attributes, problems: refused });
    }
  });

  it('refuses an OrgRef by id that also names a Core name or a Core ID', () => {
    for (const carrier of [
      { id: UUID, coreName: 'ACME' },
      { id: UUID, coreId: 'DC01' },
    ]) {
      expect(problemsOf({ ...valid, carrier })).toEqual([
        'carrier.id: an OrgRef has exactly one form: id, or coreName with coreId, not both',
      ]);
    }
  });

  it('lets a range end on its begin, or have only an end', () => {
    const at = '2026-11-22T00:00:00Z';
    expect(problemsOf({ ...valid, validDates: { begin: at, end: at } })).toEqual([]);
    expect(problemsOf({ ...valid, validDates: { end: at } })).toEqual([]);
    expect(problemsOf({ ...valid, preferredDates: { begin: at, end: '2026-11-21T23:59:59Z' } })).toEqual([
      'preferredDates.end must not be before begin',
    ]);
  });

  it('reports what a field is before its length, range or form', () => {
    expect(
      problemsOf({
        ...valid,
        id: 5,
        loads: [{ name: 'Pallet', quantity: 'many' }],
        settings: { maxUses: 0.5 },
        validDates: { begin: '2026-11-22T00:00:00Z', end: 'tomorrow' },
        offsite: 'DC01',
        carrier: { id: 'DC01', coreName: 'ACME', coreId: 'DC01' },
      }),
    ).toEqual([
      'id must be a string',
      'offsite must be an object',
      'carrier.id must be a UUID (or give coreName and coreId instead)',
      'loads[0].quantity must be a number conforming to the specified constraints',
      'settings.maxUses must be an integer number',
      'validDates.end must be a valid ISO 8601 date string',
    ]);
  });

  it('numbers the elements of a list past the tenth, under the prefix given', () => {
    const loads = Array.from({ length: 12 }, (_, i) => ({ name: `L${i}`, quantity: i === 11 ? -1 : 1 }));
    const result = validatePlain(DocumentInputDto, { ...valid, loads }, 'operations[0].document.');
    expect(result).toEqual({
      ok: false,
      problems: ['operations[0].document.loads[11].quantity must not be less than 0'],
    });
  });

  it('gives the valid document back as a DocumentInputDto', () => {
    const result = validatePlain(DocumentInputDto, valid);
    expect(result.ok).toBe(true);
    expect(result.ok && result.value).toBeInstanceOf(DocumentInputDto);
    expect(result.ok && result.value).toMatchObject({ id: 'PO-1', loads: [{ name: 'Pallet', quantity: 3 }] });
  });

  it('refuses a body that is not an object, naming it by the prefix given', () => {
    for (const body of [null, 'PO-1', 7, true]) {
      expect(validatePlain(DocumentInputDto, body)).toEqual({ ok: false, problems: ['body must be a JSON object'] });
    }
    expect(validatePlain(DocumentInputDto, null, 'operations[1].document')).toEqual({
      ok: false,
      problems: ['operations[1].document must be a JSON object'],
    });
  });
});

describe('fieldProblems: one problem a field, what it is first', () => {
  class Probe {
    @IsOptional() @IsArray() @ArrayMaxSize(1) list?: string[];
    @IsOptional() @IsBoolean() @IsIn([true]) flag?: boolean;
    @IsOptional() @ValidateNested() @Type(() => NamedDto) @IsIn(['never']) named?: NamedDto;
    @IsOptional() @IsString() line2?: string;
  }

  it.each([
    ['list', 'x', 'list must be an array'],
    ['flag', 'yes', 'flag must be a boolean value'],
    ['named', 'x', 'named: nested property named must be either object or array'],
    ['line2', 2, 'line2 must be a string'],
  ])('%s: %j', (field, value, problem) => {
    expect(validatePlain(Probe, { [field]: value })).toEqual({ ok: false, problems: [problem] });
  });
});

describe('unstorableText: strings the audit store cannot hold', () => {
  it('finds the NUL character or an unpaired surrogate, in a value or a field name, by its path', () => {
    expect(unstorableText({ operations: [{ document: { id: 'PO-1' } }, { document: { id: 'PO\u00002' } }] })).toBe(
      'operations[1].document.id contains the NUL character (\\u0000), which cannot be stored',
    );
    expect(unstorableText({ note: ['ok', 'bad \ud800'] })).toBe(
      'note[1] contains an unpaired UTF-16 surrogate (not valid Unicode), which cannot be stored',
    );
    expect(unstorableText({ attributes: { 'a\u0000b': 1 } })).toBe(
      'attributes: the field name "a\\u0000b" contains the NUL character (\\u0000), which cannot be stored',
    );
    expect(unstorableText('\udc00')).toBe(
      'body contains an unpaired UTF-16 surrogate (not valid Unicode), which cannot be stored',
    );
    expect(unstorableText(['x', '\u0000'])).toBe(
      'body[1] contains the NUL character (\\u0000), which cannot be stored',
    );
  });

  it('reports the first such string only, and nothing for text that can be stored', () => {
    expect(unstorableText({ a: 'x\u0000', b: '\ud800' })).toBe(
      'a contains the NUL character (\\u0000), which cannot be stored',
    );
    expect(unstorableText({ a: ['é', '😀', '\ud83d\ude00'], b: 1, c: true, d: null, e: { f: [] } })).toBeNull();
    expect(unstorableText(null)).toBeNull();
    expect(unstorableText(42)).toBeNull();
    expect(unstorableText('plain')).toBeNull();
  });
});
