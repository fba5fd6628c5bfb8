import { FaultEnvironment, Outcome, runScenario, SCALES, SCENARIOS, table } from './fault-suite';

/**
 * The fault suite at CI size (`npm run faults` runs it at full size and prints the figures for
 * docs/reliability.md): every scenario must end with nothing lost, stuck or duplicated, no document
 * on an older version and every platform write in the audit.
 */
describe('fault suite (real processes: sandbox, gateway, two workers)', () => {
  let env: FaultEnvironment;
  const outcomes: Outcome[] = [];
  beforeAll(async () => (env = await FaultEnvironment.start(2)), 240_000);
  afterAll(async () => {
    if (outcomes.length > 0) {
      console.log(`fault suite (ci scale)\n${table(outcomes)}`);
    }
    await env?.stop();
  }, 60_000);

  it.each(SCENARIOS.map((spec) => [spec.name, spec] as const))(
    '%s: 0 lost, 0 stuck, 0 duplicates, newest version wins, every write audited',
    async (_name, spec) => {
      const outcome = await runScenario(env, spec, SCALES.ci);
      outcomes.push(outcome);
      const expectedMessages = SCALES.ci.messages * (spec.pairs ? 2 : 1);
      expect(outcome).toMatchObject({
        sent: expectedMessages,
        accepted: expectedMessages,
        clientGaveUp: 0,
        stuck: 0,
        failed: 0,
        duplicateMessages: 0,
        unauditedWrites: 0,
        olderVersions: 0,
      });
      expect(outcome.delivered + outcome.superseded).toBe(expectedMessages);
    },
    300_000,
  );
});
