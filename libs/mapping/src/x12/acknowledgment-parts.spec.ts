import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EMPTY_DIRECTORY } from './edi-types';
import {
  ACKNOWLEDGMENT_PART_CHARS,
  type EdiEvent,
  type EdiTranslationInput,
  translateEdi,
  translateEdiEvents,
} from './interchange-translation';

const ISA = (control: string) =>
  `ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260106*1015*U*00401*${control}*0*P*>~\n`;

/** One interchange of one group of `sets` invoices (810: not handled, so each is answered AK5*R*1). */
function invoices(sets: number, options: { control?: string; iea?: string } = {}): string {
  const control = options.control ?? '000000001';
  const parts = [ISA(control), 'GS*IN*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*1*X*004010~\n'];
  for (let n = 1; n <= sets; n++) {
    parts.push(`ST*810*${n}~\nSE*2*${n}~\n`);
  }
  parts.push(`GE*${sets}*1~\nIEA*1*${options.iea ?? control}~\n`);
  return parts.join('');
}

const input = (raw: string, more: Partial<EdiTranslationInput> = {}): EdiTranslationInput => {
  let control = 0;
  return {
    raw,
    settings: { organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', coreName: 'ACME', locationCodes: ['DC01'] },
    senderIds: ['KETTLESUPPLY'],
    directory: EMPTY_DIRECTORY,
    nextControlNumber: async () => ++control,
    now: new Date('2026-01-06T10:15:00Z'),
    ...more,
  };
};

/** The translation's events with the acknowledgment handed out in parts, the parts recorded as they come. */
async function inParts(raw: string) {
  const log: string[] = [];
  let parts: string[] = [];
  const acknowledgments: string[] = [];
  const events: EdiEvent[] = [];
  for await (const event of translateEdiEvents(
    input(raw, {
      nextControlNumber: (() => {
        let n = 0;
        return async () => {
          log.push(`control ${++n}`);
          return n;
        };
      })(),
      acknowledgmentParts: {
        write: async (text) => void parts.push(text),
        discard: async () => {
          log.push(`discard ${parts.length}`);
          parts = [];
        },
      },
    }),
  )) {
    if (event.type === 'interchange') {
      if (event.acknowledgment && event.acknowledgment.kind !== 'TA1') {
        acknowledgments.push(parts.join('') + event.acknowledgment.content);
      } else if (event.acknowledgment) {
        acknowledgments.push(event.acknowledgment.content);
      }
      parts = [];
    }
    events.push(event);
  }
  return { log, acknowledgments, events };
}

describe('a 997 handed out in parts as the sets end', () => {
  it('is, part after part, the 997 written whole, with its control number taken once', async () => {
    // Two interchanges (the second's 997 outgrows a part), then one refused at its IEA.
    const raw =
      invoices(3) + invoices(9000, { control: '000000002' }) + invoices(9000, { control: '000000003', iea: '9' });
    const whole = await translateEdi(input(raw));
    const streamed = await inParts(raw);
    expect(whole.acknowledgments.map((a) => a.kind)).toEqual(['997', '997', 'TA1']);
    expect(whole.acknowledgments[1].content.length).toBeGreaterThan(2 * ACKNOWLEDGMENT_PART_CHARS);
    expect(streamed.acknowledgments).toEqual(whole.acknowledgments.map((a) => a.content));
    // The third took its number when its 997 outgrew a part; refused at its end, the TA1 has that number and the parts are void.
    expect(streamed.log).toHaveLength(4);
    expect(streamed.log.slice(0, 3)).toEqual(['control 1', 'control 2', 'control 3']);
    expect(streamed.log[3]).toMatch(/^discard [1-9]\d*$/);
    expect(streamed.acknowledgments[2]).toContain(
      'ISA*00*          *00*          *ZZ*DOCKBRIDGE     *ZZ*KETTLESUPPLY   *260106*1015*U*00401*000000003*',
    );
  });

  it('keeps each part within the part size, but for the ISA and GS and one set', async () => {
    const sizes: number[] = [];
    for await (const _event of translateEdiEvents(
      input(invoices(20_000), {
        acknowledgmentParts: { write: async (text) => void sizes.push(text.length), discard: async () => undefined },
      }),
    )) {
      // drained
    }
    expect(sizes.length).toBeGreaterThan(5);
    expect(Math.max(...sizes)).toBeLessThan(ACKNOWLEDGMENT_PART_CHARS + 300);
  });
});

describe('an interchange refused at its end', () => {
  it('names the first 20 sets cut off without SE and counts the rest', async () => {
    const sets = Array.from({ length: 25 }, (_, i) => `ST*810*${i + 1}~\n`).join('');
    const raw = ISA('000000001') + 'GS*IN*KETTLESUPPLY*DOCKBRIDGE*20260106*1015*1*X*004010~\n' + sets;
    const { interchanges, acknowledgments } = await translateEdi(input(raw));
    expect(acknowledgments.map((a) => a.kind)).toEqual(['TA1']);
    const reasons = interchanges[0].reason!.split('; ');
    expect(reasons.filter((r) => / has no SE /.test(r))).toHaveLength(20);
    expect(reasons[0]).toMatch(/^transaction set 810 1 has no SE \(line 4, column 1\)$/);
    expect(reasons.slice(20)).toEqual([
      expect.stringMatching(/^functional group 1 has no GE/),
      '5 more transaction set(s) have no SE',
      expect.stringMatching(/^interchange 000000001 has no IEA/),
    ]);
  });
});

describe('memory held while a group of many sets is read', () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };

  /** Heap held when the interchange ends (its groups are still open to the translation) over what was held before it began. */
  async function heldAtEnd(sets: number): Promise<number> {
    const raw = invoices(sets);
    let written = 0;
    let held = NaN;
    const before = heap();
    for await (const event of translateEdiEvents(
      input(raw, {
        acknowledgmentParts: { write: async (text) => void (written += text.length), discard: async () => undefined },
      }),
    )) {
      if (event.type === 'interchange') {
        held = heap() - before;
        written += event.acknowledgment?.content.length ?? 0;
      }
    }
    expect(written).toBeGreaterThan(sets * 20);
    return held;
  }

  it('does not grow with the number of sets: 60,000 hold what 10,000 do', async () => {
    await heldAtEnd(10_000); // warm up: code compiled, caches filled
    // Twice, the smaller difference kept: a set's summary (~150 bytes) or the 997's text (~20 bytes)
    // held per set would be there both times, code compiled or garbage kept once would not.
    const growth: number[] = [];
    for (let round = 0; round < 2; round++) {
      const small = await heldAtEnd(10_000);
      const large = await heldAtEnd(60_000);
      growth.push(large - small);
    }
    // 50,000 sets more: 20 bytes each held would be 1 MB (a summary each, ~7.5 MB); measured growth is
    // 30-100 KB. Under CI's load the whole took up to 95 s with 110,000 sets, near its time limit.
    expect(Math.min(...growth)).toBeLessThan(0.75 * 1024 * 1024);
  }, 180_000);
});

describe('translateEdiEvents reading the envelopes only', () => {
  const outcomes = async (raw: string, envelopesOnly: boolean) => {
    const events: EdiEvent[] = [];
    for await (const event of translateEdiEvents(input(raw, { envelopesOnly }))) {
      events.push(event);
    }
    return {
      sets: events.filter((e) => e.type === 'set').length,
      interchanges: events.flatMap((e) =>
        e.type === 'interchange' ? [{ key: e.outcome.key, refused: e.outcome.refused, atEnd: e.refusedAtEnd }] : [],
      ),
    };
  };

  it('refuses what the whole translation refuses, without a set', async () => {
    const raw =
      invoices(3) +
      invoices(2, { control: '000000002', iea: '7' }) + // refused at its IEA
      invoices(2, { control: '000000003' }).replace('KETTLESUPPLY   ', 'STRANGER       ') + // unknown sender
      invoices(1); // the first one again

    const whole = await outcomes(raw, false);
    const envelopes = await outcomes(raw, true);

    expect(whole.sets).toBe(8);
    expect(envelopes.sets).toBe(0);
    expect(envelopes.interchanges).toEqual(whole.interchanges);
    expect(envelopes.interchanges.map((i) => i.refused)).toEqual([false, true, true, true]);
  });
});
