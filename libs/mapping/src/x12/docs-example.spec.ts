import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OrgRef } from '@dockbridge/platform';
import { translateEdi } from './interchange-translation';

/** docs/mapping.md's 856 example maps to exactly the operation and 997 the guide shows. */
const guide = readFileSync(join(__dirname, '../../../../docs/mapping.md'), 'utf8');
const section = guide.slice(guide.indexOf('### Example: one 856'));
const x12 = /```\n(ISA[\s\S]*?)```/.exec(section)![1];
const json = /```json\n([\s\S]*?)```/.exec(section)![1];
const FAST_FREIGHT: OrgRef = { id: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e10' };

describe('docs/mapping.md: the 856 example', () => {
  it('gives the operation and the 997 the guide shows', async () => {
    const result = await translateEdi({
      raw: x12,
      settings: {
        organisationId: '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01',
        coreName: 'ACME',
        locationCodes: ['DC01'],
        documentSettings: { mode: 'Flexible', maxUses: 2 },
      },
      senderIds: ['KETTLE'],
      directory: { byCode: () => undefined, byScac: (scac) => (scac === 'FFRT' ? FAST_FREIGHT : undefined) },
      nextControlNumber: async () => 1,
      now: new Date('2026-11-30T09:20:00Z'),
    });
    expect(result.operations.map((o) => o.operation)).toEqual([JSON.parse(json)]);
    expect(result.acknowledgments[0].content).toContain('AK5*A~\nAK9*A*1*1*1~');
  });
});
