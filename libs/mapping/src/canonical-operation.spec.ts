import {
  CHECK_SLICE,
  checkCanonicalMessage,
  checkCanonicalMessageInTurns,
  mayHoldUnstorableText,
  organisationScopeProblems,
  targetOf,
} from './canonical-operation';

/** A character as a JSON escape: every code unit outside printable ASCII, as a sender may write it. */
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

const location = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const upsert = {
  kind: 'document.upsert',
  organisationId: location,
  document: { id: 'PO-1', direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
};

describe('checkCanonicalMessage', () => {
  it('accepts every operation kind in its canonical shape', () => {
    const result = checkCanonicalMessage({
      operations: [
        upsert,
        { kind: 'document.delete', organisationId: location, documentId: 'PO-2' },
        {
          kind: 'booking.create',
          organisationId: location,
          booking: { carrierId: location, requestedTime: '2026-12-01T08:00:00Z', duration: 30, tasks: [] },
        },
        {
          kind: 'booking.status',
          organisationId: location,
          bookingId: 'MDB-26-AAAA-BBBB',
          statusReference: { name: 'Arrived' },
        },
        {
          kind: 'booking.tasks',
          organisationId: location,
          bookingId: 'MDB-26-AAAA-BBBB',
          addTasks: [],
          deleteTasks: [],
          time: '2026-12-01T09:00:00Z',
        },
        { kind: 'vehicle.update', organisationId: location, vehicleId: location, vehicle: { registration: 'X' } },
      ],
    });
    expect(result).toEqual({ ok: true, operations: expect.any(Array) });
  });

  it('names the path of each problem, down into the document', () => {
    const result = checkCanonicalMessage({
      operations: [
        upsert,
        { ...upsert, document: { ...upsert.document, loads: [{ name: 'Pallet', quantity: 'x' }] } },
        { kind: 'document.delete', organisationId: 'not-a-uuid' },
        { kind: 'teleport', organisationId: location },
      ],
    });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual([
      expect.stringMatching(/^operations\[1\]\.document\.loads\[0\]\.quantity/),
      expect.stringMatching(/^operations\[2\]\.organisationId/),
      expect.stringMatching(/^operations\[2\]\.documentId/),
      expect.stringMatching(/^operations\[3\]\.kind/),
    ]);
  });

  it('holds booking.status to a booking id and a status (a UUID, or a reference object), naming each path', () => {
    const status = { kind: 'booking.status', organisationId: location, bookingId: 'MDB-26-AAAA-BBBB' };
    const problems = (op: Record<string, unknown>) => {
      const result = checkCanonicalMessage({ operations: [upsert, op] });
      return result.ok ? [] : result.problems;
    };
    expect(problems({ ...status, statusId: location })).toEqual([]);
    expect(problems({ ...status, statusReference: { name: 'Arrived' } })).toEqual([]);
    expect(problems({ ...status, bookingId: undefined, statusId: location })).toEqual([
      expect.stringMatching(/^operations\[1\]\.bookingId/),
    ]);
    expect(problems({ ...status, bookingId: '', statusId: location })).toEqual([
      expect.stringMatching(/^operations\[1\]\.bookingId/),
    ]);
    expect(problems({ ...status, bookingId: 42, statusId: location })).toEqual([
      expect.stringMatching(/^operations\[1\]\.bookingId/),
    ]);
    expect(problems(status)).toEqual(['operations[1].statusId must be a UUID (or give statusReference)']);
    expect(problems({ ...status, statusId: 'Arrived' })).toEqual([
      'operations[1].statusId must be a UUID (or give statusReference)',
    ]);
    expect(problems({ ...status, statusReference: 'Arrived' })).toEqual([
      expect.stringMatching(/^operations\[1\]\.statusReference/),
    ]);
    expect(problems({ ...status, statusId: location, fields: 'x' })).toEqual([
      expect.stringMatching(/^operations\[1\]\.fields/),
    ]);
  });

  it('holds vehicle.update to a vehicle UUID and a vehicle object, naming each path', () => {
    const vehicle = {
      kind: 'vehicle.update',
      organisationId: location,
      vehicleId: location,
      vehicle: { registration: 'X' },
    };
    const problems = (op: Record<string, unknown>) => {
      const result = checkCanonicalMessage({ operations: [op] });
      return result.ok ? [] : result.problems;
    };
    expect(problems(vehicle)).toEqual([]);
    expect(problems({ ...vehicle, vehicleId: undefined })).toEqual([
      expect.stringMatching(/^operations\[0\]\.vehicleId/),
    ]);
    expect(problems({ ...vehicle, vehicleId: 'TRUCK-7' })).toEqual([
      expect.stringMatching(/^operations\[0\]\.vehicleId/),
    ]);
    expect(problems({ ...vehicle, vehicle: undefined })).toEqual([
      expect.stringMatching(/^operations\[0\]\.vehicle\b/),
    ]);
    expect(problems({ ...vehicle, vehicle: 'X' })).toEqual([expect.stringMatching(/^operations\[0\]\.vehicle\b/)]);
    // What only vehicle.update needs is not asked of other kinds.
    expect(problems({ kind: 'document.delete', organisationId: location, documentId: 'PO-2' })).toEqual([]);
  });

  it('refuses an empty list, a missing list and both booking forms at once', () => {
    expect(checkCanonicalMessage({ operations: [] })).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^operations/)],
    });
    expect(checkCanonicalMessage({})).toEqual({ ok: false, problems: [expect.stringMatching(/^operations/)] });
    const both = checkCanonicalMessage({
      operations: [{ kind: 'booking.create', organisationId: location, booking: {}, bookingEntityRef: {} }],
    });
    expect(!both.ok && both.problems).toEqual([expect.stringMatching(/not both/)]);
  });

  it('refuses the NUL character, which the store cannot hold, naming where it is', () => {
    const result = checkCanonicalMessage({
      operations: [{ ...upsert, document: { ...upsert.document, id: 'PO-\u0000-1' } }],
    });
    expect(result).toEqual({
      ok: false,
      problems: ['operations[0].document.id contains the NUL character (\\u0000), which cannot be stored'],
    });
  });

  it('refuses an unpaired surrogate (valid JSON, not storable), naming where it is', () => {
    const result = checkCanonicalMessage(
      JSON.parse(
        '{"operations":[{"kind":"document.delete","organisationId":"' + location + '","documentId":"PO-\\ud800"}]}',
      ),
    );
    expect(result).toEqual({
      ok: false,
      problems: [expect.stringMatching(/^operations\[0\]\.documentId contains an unpaired UTF-16 surrogate/)],
    });
    // A pair is a character like any other.
    expect(
      checkCanonicalMessage({ operations: [{ ...upsert, document: { ...upsert.document, id: 'PO-\u{1F600}' } }] }).ok,
    ).toBe(true);
  });

  it('refuses operations that are not objects (an array would pass as a nested value), naming each', () => {
    expect(checkCanonicalMessage({ operations: [[], upsert, null, 'x'] })).toEqual({
      ok: false,
      problems: [
        'operations[0] must be an object',
        'operations[2] must be an object',
        'operations[3] must be an object',
      ],
    });
  });

  it('says a body that is not a JSON object is one, whatever bytes it holds', () => {
    expect(checkCanonicalMessage('\u0000 binary')).toEqual({ ok: false, problems: ['body must be a JSON object'] });
  });

  it('names the platform object each operation acts on', () => {
    expect(targetOf(upsert as never)).toBe('PO-1');
    expect(targetOf({ kind: 'document.delete', organisationId: location, documentId: 'PO-2' })).toBe('PO-2');
  });
});

describe('organisationScopeProblems', () => {
  const other = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e02';
  const remove = (organisationId: string) => ({ kind: 'document.delete' as const, organisationId, documentId: 'PO-9' });

  it('passes operations on allowed organisations, whatever the case of the uuid', () => {
    expect(organisationScopeProblems([remove(location), remove(location.toUpperCase())], new Set([location]))).toEqual(
      [],
    );
  });

  it('names each operation outside by position, kind and organisation, and counts past twenty', () => {
    const operations = [remove(location), ...Array.from({ length: 25 }, () => remove(other))];
    const problems = organisationScopeProblems(operations, new Set([location]));
    expect(problems).toHaveLength(21);
    expect(problems[0]).toBe(
      `operations[1] (document.delete) acts on organisation ${other}, which this partner may not act on`,
    );
    expect(problems[20]).toBe('and 5 more operations on organisations this partner may not act on');
  });
});

describe('checkCanonicalMessageInTurns', () => {
  const many = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ ...upsert, document: { ...upsert.document, id: `PO-${i}` } }));

  it('finds what checkCanonicalMessage finds, with the paths of the whole message', async () => {
    const operations: object[] = many(1_000);
    operations[3] = { ...upsert, document: { ...upsert.document, direction: 'Sideways' } };
    operations[CHECK_SLICE + 10] = { ...upsert, organisationId: 'not-a-uuid' };
    operations[999] = { ...upsert, document: { ...upsert.document, id: 7 } };
    const body = { operations, extra: true };

    const whole = checkCanonicalMessage(body);
    const inTurns = await checkCanonicalMessageInTurns(body);

    expect(whole.ok).toBe(false);
    expect(inTurns.ok).toBe(false);
    const problems = (check: typeof whole) => (check.ok ? [] : [...check.problems].sort());
    expect(problems(inTurns)).toEqual(problems(whole));
    const at = [3, CHECK_SLICE + 10, 999].map((i) => `operations[${i}]`);
    expect(at.map((path) => problems(inTurns).some((p) => p.startsWith(path)))).toEqual([true, true, true]);
    expect(problems(inTurns).filter((p) => p.includes('extra'))).toHaveLength(1);
  });

  it('lists 100 problems and says there are more; in turns, stops checking past them', async () => {
    const operations = many(300).map((op) => ({ ...op, first: 1, second: 2 }));
    const whole = checkCanonicalMessage({ operations });
    const inTurns = await checkCanonicalMessageInTurns({ operations });
    expect(whole.ok ? [] : whole.problems.slice(100)).toEqual(['…and 500 more problems']);
    expect(inTurns.ok ? [] : inTurns.problems.slice(100)).toEqual([
      `…and more problems, not checked past operations[${CHECK_SLICE - 1}]`,
    ]);
    // Exactly 100 are listed whole, either way (no slice stops short of a message with no more).
    const hundred = many(300).map((op, i) => (i < 50 ? { ...op, first: 1, second: 2 } : op));
    for (const check of [
      checkCanonicalMessage({ operations: hundred }),
      await checkCanonicalMessageInTurns({ operations: hundred }),
    ]) {
      expect(check.ok ? [] : check.problems).toHaveLength(100);
    }
  });

  it('answers the valid operations themselves, after the checks that follow validation', async () => {
    const operations = many(600);
    const valid = await checkCanonicalMessageInTurns({ operations });
    expect(valid).toEqual({ ok: true, operations });

    const nul = many(600);
    nul[555] = { ...upsert, document: { ...upsert.document, id: 'PO-\u0000' } };
    expect(await checkCanonicalMessageInTurns({ operations: nul })).toEqual(checkCanonicalMessage({ operations: nul }));
  });

  it('refuses unstorable text as before when given the JSON text, whether escaped or not, and lets pairs through', async () => {
    const at = (id: string) => {
      const operations: object[] = many(600);
      operations[555] = { ...upsert, document: { ...upsert.document, id } };
      return { operations };
    };
    for (const id of ['PO-\u0000', 'PO-\uD800', 'PO-\uDC00x', 'PO-\u{1F600}', 'PO-\\u0000', 'PO-é']) {
      const body = at(id);
      for (const json of [JSON.stringify(body), JSON.stringify(body).replace(/[^\x20-\x7e]/g, escapeChar)]) {
        expect(await checkCanonicalMessageInTurns(JSON.parse(json), undefined, json)).toEqual(
          checkCanonicalMessage(body),
        );
      }
    }
    expect((await checkCanonicalMessageInTurns(at('PO-\uD800'))).ok).toBe(false);
    expect(mayHoldUnstorableText(JSON.stringify(at('PO-é')))).toBe(false);
    expect(mayHoldUnstorableText('{"id":"PO-\\u00e9"}')).toBe(false);
    expect(mayHoldUnstorableText('{"id":"PO-\\u0000"}')).toBe(true);
    expect(mayHoldUnstorableText('{"id":"PO-\\ud83d\\ude00"}')).toBe(true);
  });

  it('gives the event loop a turn between slices, so other work goes on while a large message is checked', async () => {
    let turns = 0;
    const check = checkCanonicalMessageInTurns({ operations: many(4 * CHECK_SLICE) }, async () => {
      turns++;
      await new Promise<void>((resolve) => setImmediate(resolve));
    });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 0);
    expect((await check).ok).toBe(true);
    clearInterval(ticker);
    expect(turns).toBe(3);
    expect(ticks).toBeGreaterThan(0);
  });

  it('refuses more operations than a message may hold without checking each', async () => {
    const body = { operations: Array.from({ length: 100_001 }, () => ({ kind: 'document.delete' })) };
    expect(await checkCanonicalMessageInTurns(body)).toEqual({
      ok: false,
      problems: ['operations must contain no more than 100000 elements'],
    });
  });
  it("reads the body's other fields once, however many slices its operations take", async () => {
    let enumerations = 0;
    const fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`extra${i}`, i]));
    const body = new Proxy(
      { ...fields, operations: many(10 * CHECK_SLICE) },
      {
        ownKeys: (target) => {
          enumerations++;
          return Reflect.ownKeys(target);
        },
      },
    );
    const check = await checkCanonicalMessageInTurns(body);
    expect(check.ok).toBe(false);
    expect(check.ok ? [] : check.problems.filter((p) => p.includes('extra'))).toHaveLength(50);
    expect(enumerations).toBeLessThanOrEqual(2);
  });
});

describe('checkCanonicalMessage: names every object inherits', () => {
  const poison = JSON.parse('{"constructor":{}}') as object;
  const documentWith = (patch: Record<string, unknown>) => ({ ...upsert, document: { ...upsert.document, ...patch } });

  it.each([
    ['document.id', documentWith({ id: poison }), /^operations\[0\]\.document\.id: /],
    ['document.direction', documentWith({ direction: poison }), /^operations\[0\]\.document\.direction: /],
    [
      'a load name',
      documentWith({ loads: [{ name: poison, quantity: 1 }] }),
      /^operations\[0\]\.document\.loads\[0\]\.name: /,
    ],
    ['an attribute', documentWith({ attributes: poison }), /^operations\[0\]\.document\.attributes\.constructor: /],
    [
      'documentId',
      { kind: 'document.delete', organisationId: location, documentId: poison },
      /^operations\[0\]\.documentId: /,
    ],
  ])('refuses {"constructor":{}} as %s by its path, without throwing', async (_what, operation, problem) => {
    const expected = { ok: false, problems: [expect.stringMatching(problem)] };
    expect(checkCanonicalMessage({ operations: [operation] })).toEqual(expected);
    expect(await checkCanonicalMessageInTurns({ operations: [operation] })).toEqual(expected);
  });

  it.each(['valueOf', 'toString', 'hasOwnProperty', '__proto__'])(
    'refuses a field named %s as unknown, in a document and in the body',
    async (name) => {
      const inDocument = JSON.parse(JSON.stringify({ operations: [upsert] }).replace('"id":', `"${name}":1,"id":`));
      const expected = { ok: false, problems: [`operations[0].document.${name}: unknown field`] };
      expect(checkCanonicalMessage(inDocument)).toEqual(expected);
      expect(await checkCanonicalMessageInTurns(inDocument)).toEqual(expected);
      const inBody = JSON.parse(`{"${name}":1,"operations":[${JSON.stringify(upsert)}]}`);
      expect(checkCanonicalMessage(inBody)).toEqual({ ok: false, problems: [`${name}: unknown field`] });
    },
  );

  it('still takes such a name as an attribute key holding text (attributes are free-form)', () => {
    const attributes = JSON.parse('{"constructor":"x","valueOf":"y"}');
    expect(checkCanonicalMessage({ operations: [documentWith({ attributes })] })).toMatchObject({ ok: true });
  });
});

describe('checkCanonicalMessage: ids a URL path reads as dot segments', () => {
  it.each(['.', '..'])('refuses %p as a document id, a deleted document id and a booking id', (id) => {
    const operations = [
      { ...upsert, document: { ...upsert.document, id } },
      { kind: 'document.delete', organisationId: location, documentId: id },
      { kind: 'booking.status', organisationId: location, bookingId: id, statusReference: { name: 'Arrived' } },
    ];
    const result = checkCanonicalMessage({ operations });
    expect(result).toEqual({
      ok: false,
      problems: [
        'operations[0].document.id cannot be "." or "..": a URL path reads them as no id at all',
        'operations[1].documentId cannot be "." or "..": a URL path reads them as no id at all',
        'operations[2].bookingId cannot be "." or "..": a URL path reads them as no id at all',
      ],
    });
  });

  it('takes ids that only hold dots among other characters', () => {
    const operations = ['...', '.a', 'PO-1.2'].map((id) => ({ ...upsert, document: { ...upsert.document, id } }));
    expect(checkCanonicalMessage({ operations })).toMatchObject({ ok: true });
  });
});

describe('checkCanonicalMessage: the DTO’s problems and the schema’s together', () => {
  it('lists an operation the DTO lets through beside one it words, whole or in turns', async () => {
    const operations: object[] = Array.from({ length: 150 }, (_, i) => ({
      ...upsert,
      document: { ...upsert.document, id: `PO-${i}` },
    }));
    operations[0] = { ...upsert, document: { ...upsert.document, direction: 'Sideways' } };
    operations[120] = JSON.parse(JSON.stringify(upsert).replace('"id":', '"valueOf":1,"id":'));
    const expected = {
      ok: false,
      problems: [
        expect.stringMatching(/^operations\[0\]\.document\.direction /),
        'operations[120].document.valueOf: unknown field',
      ],
    };
    expect(checkCanonicalMessage({ operations })).toEqual(expected);
    expect(await checkCanonicalMessageInTurns({ operations })).toEqual(expected);
  });
});
