import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import {
  acknowledgeGroup,
  build997,
  buildTA1,
  parseX12,
  readX12,
  ta1NoteCode,
  type Problem,
  type X12Event,
} from '@dockbridge/x12';

/**
 * Reads every public sample in ../shared/x12-samples (kept outside the project: their licences
 * differ) and checks what its README says about it. A clone without that folder skips this suite,
 * saying how many tests it skips; test/edi-paths.e2e-spec.ts (and libs/x12's fixtures) check the
 * same behaviours on the project's own files.
 */
const SAMPLES = path.resolve(__dirname, '../../shared/x12-samples');
const present = existsSync(SAMPLES);

interface Expectation {
  /** Transaction set ids, per interchange, per group. */
  sets: string[][][];
  /** Problem codes, in order (none for valid files). */
  problems?: Problem['code'][];
  /** TA1 note code when the envelope must be rejected. */
  ta1?: string;
  /** AK5 per set of the first group, when it says something. */
  ak5?: string[];
}

const x = (id: string, n: number) => Array.from({ length: n }, () => id);
const EXPECTED: Record<string, Expectation> = {
  'aaronhuggins__node-x12__850.edi': { sets: [[['850']]] },
  // The same interchange twice: two interchanges with the same key (duplicate detection is the caller's).
  'aaronhuggins__node-x12__850_fat.edi': { sets: [[['850']], [['850']]] },
  'olmelabs__EdiEngine__856.Crossdock.OK.edi': { sets: [[['856']]] },
  // Envelope valid; PO1 P0607 at position 13, PO4 C0506 + P0607 at position 30 (as EdiEngine finds).
  'olmelabs__EdiEngine__850.SyntaxNotes.ERR.edi': {
    sets: [[['850']]],
    problems: ['SYNTAX_NOTE', 'SYNTAX_NOTE', 'SYNTAX_NOTE'],
    ak5: ['E'],
  },
  // N1*ST*CARGO LIMITED #112*92 has N103 without N104 (P0304): accepted with errors.
  'xlate__staedi__invoice810_po850_dual.edi': { sets: [[['810', '810'], ['850']]], problems: ['SYNTAX_NOTE'] },
  'xlate__staedi__simple997.edi': { sets: [[['997']]] },
  'bots-edi__bots-plugins__850-004010-11.x12': { sets: [[['850']]] },
  'bots-edi__bots-plugins__850-004010.15.x12': { sets: [[x('850', 4)]] },
  'bots-edi__bots-plugins__850-004010-02.x12': {
    sets: [
      [
        ['850', '850'],
        ['850', '850'],
      ],
    ],
    problems: ['DUPLICATE_ST02', 'DUPLICATE_ST02'],
    ak5: ['A', 'R'],
  },
  'bots-edi__bots-plugins__850-004010-08.x12': { sets: [[['850', '850']]] },
  'bots-edi__bots-plugins__850_01.x12': { sets: [[['850']]] },
  'bots-edi__bots-plugins__856_2.x12': { sets: [[['856', '856']]] },
  'Stedi-Demos__bootstrap-archived__X12-5010-850-input.edi': { sets: [[['850']]] },
  // No final terminator (a warning) and IEA02 != ISA13: TA1 001.
  'walmartlabs__gozer__asn856_isa13_iea02_mismatch.txt': {
    sets: [[['856']]],
    problems: ['MISSING_TERMINATOR', 'ISA13_IEA02_MISMATCH'],
    ta1: '001',
  },
  // SE01 33 for 21 segments: set rejected (AK5 R 4).
  'walmartlabs__gozer__po850_se01_mismatch.txt': {
    sets: [[['850']]],
    problems: ['SE01_SEGMENT_COUNT', 'MISSING_TERMINATOR'],
    ak5: ['R'],
  },
};

const options = { senderId: 'DOCKBRIDGE', controlNumber: 1, date: new Date('2026-01-02T03:04:00Z') };

// Without the folder the tests are still declared (one per expected sample), so Jest counts them as skipped.
const files = present
  ? readdirSync(SAMPLES)
      .filter((f) => f !== 'README.md')
      .sort()
  : Object.keys(EXPECTED).sort();
const SKIPPED = `SKIPPED ${files.length + 3} tests: ${SAMPLES} not found (a clone without ../shared); test/edi-paths.e2e-spec.ts checks the same behaviours on the project's own files`;
if (!present) {
  // Straight to stderr: Jest swallows console output of a suite whose tests are all skipped.
  process.stderr.write(`\n${'!'.repeat(100)}\nx12-samples.e2e-spec.ts: ${SKIPPED}\n${'!'.repeat(100)}\n\n`);
}

(present ? describe : describe.skip)(present ? `x12 samples in ${SAMPLES}` : SKIPPED, () => {
  it('has an expectation for every sample, and a sample for every expectation', () => {
    expect(files).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(files)('%s', async (file) => {
    const expected = EXPECTED[file];
    const text = readFileSync(path.join(SAMPLES, file), 'utf8');
    const doc = parseX12(text);
    expect(doc.interchanges.map((i) => i.groups.map((g) => g.summaries.map((s) => s.id)))).toEqual(expected.sets);
    expect(doc.problems.map((p) => p.code)).toEqual(expected.problems ?? []);
    for (const p of doc.problems) {
      expect(p.line).toBeGreaterThan(0);
    }

    // Every set's SE01 agrees with its length unless the README says otherwise.
    for (const i of doc.interchanges) {
      expect(ta1NoteCode(i)).toBe(expected.ta1);
      if (expected.ak5) {
        expect(acknowledgeGroup(i.groups[0]).sets.map((s) => s.status)).toEqual(expected.ak5);
      }
      // Both acknowledgments can be written and read back cleanly.
      const ack = build997(i, options);
      expect(parseX12(ack).problems).toEqual([]);
      expect(parseX12(buildTA1(i, undefined, options)).problems).toEqual([]);
    }

    // Streaming from the file gives the same sets.
    const streamed: X12Event[] = [];
    for await (const e of readX12(createReadStream(path.join(SAMPLES, file), { highWaterMark: 64 }))) {
      streamed.push(e);
    }
    const sets = streamed.flatMap((e) => (e.type === 'transactionSet' ? [e.transactionSet] : []));
    // Compared as plain data (Segment.toJSON): streamed segments point into other texts (the chunks).
    const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
    expect(plain(sets)).toEqual(plain(doc.interchanges.flatMap((i) => i.groups.flatMap((g) => g.transactionSets))));
  });

  it('850.SyntaxNotes.ERR: the 997 names PO1 (position 13) and PO4 (position 30)', () => {
    const received = parseX12(readFileSync(path.join(SAMPLES, 'olmelabs__EdiEngine__850.SyntaxNotes.ERR.edi'), 'utf8'))
      .interchanges[0];
    const ack = build997(received, options);
    expect(ack).toContain('AK3*PO1*13**8~\nAK4*7**2~');
    expect(ack).toContain('AK3*PO4*30**8~\nAK4*6**2~');
  });

  it('850-004010-08 (wrapped at 80 columns) reads as the same segments as its unwrapped text', () => {
    const text = readFileSync(path.join(SAMPLES, 'bots-edi__bots-plugins__850-004010-08.x12'), 'utf8');
    const rows = (t: string) =>
      parseX12(t).interchanges[0].groups[0].transactionSets.flatMap((s) =>
        s.segments.map((g) => [g.tag, ...g.elements]),
      );
    expect(rows(text)).toEqual(rows(text.replace(/\n/g, '')));
    expect(JSON.stringify(rows(text))).toContain('Supplier Name');
  });
});
