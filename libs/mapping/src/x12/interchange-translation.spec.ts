import { EMPTY_DIRECTORY } from './edi-types';
import { translateEdi } from './interchange-translation';

const translate = (raw: string) =>
  translateEdi({
    raw,
    settings: { organisationId: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', coreName: 'ACME', locationCodes: ['DC01'] },
    senderIds: ['KETTLESUPPLY'],
    directory: EMPTY_DIRECTORY,
    nextControlNumber: async () => 1,
    now: new Date('2026-01-06T10:15:00Z'),
  });

describe('translateEdi: payloads that open no interchange', () => {
  it.each([
    ['text that is not X12', 'hello', /^data outside any interchange/],
    ['an ISA cut short', 'ISA*00*          *00*   ', /^input ends inside an ISA segment \(line 1, column 1\)/],
    ['an ISA without its 16 elements', `ISA*${'x'.repeat(600)}~`, /^ISA without 16 elements separated by "\*"/],
    [
      'an ISA whose delimiters clash',
      'ISA*00*          *00*          *ZZ*KETTLESUPPLY   *ZZ*DOCKBRIDGE     *260106*1015*U*00401*000000001*0*P**~',
      /^ISA delimiters unusable/,
    ],
  ])('names the problem of %s', async (_what, raw, reason) => {
    const result = await translate(raw);
    expect(result.interchanges).toEqual([]);
    expect(result.acknowledgments).toEqual([]);
    expect(result.problems).toEqual([expect.stringMatching(reason)]);
  });

  it('says that nothing was found when the payload is empty', async () => {
    expect((await translate('')).problems).toEqual(['no X12 interchange found (the payload must start with ISA)']);
  });
});
