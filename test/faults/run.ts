import { FaultEnvironment, Outcome, runScenario, SCALES, SCENARIOS, table } from './fault-suite';

/**
 * `npm run faults` (full size) or `node -r ./test/support/child/ts-register.js test/faults/run.ts ci|full ['kill|redis']`: runs the fault suite at full size (default)
 * and prints the table for docs/reliability.md. Exit code 1 when any scenario lost, stuck,
 * duplicated or reordered anything.
 */
async function main(): Promise<void> {
  const scale = SCALES[(process.argv[2] as 'ci' | 'full') ?? 'full'] ?? SCALES.full;
  // Scenario names containing any of the |-separated words (all when absent).
  const filter = process.argv[3]?.toLowerCase().split('|');
  const env = await FaultEnvironment.start(2);
  const outcomes: Outcome[] = [];
  try {
    for (const spec of SCENARIOS.filter((s) => !filter || filter.some((word) => s.name.toLowerCase().includes(word)))) {
      const outcome = await runScenario(env, spec, scale);
      outcomes.push(outcome);
      console.log(JSON.stringify(outcome));
    }
  } finally {
    await env.stop();
  }
  console.log(
    `\nfault suite, ${scale.name} scale (${scale.messages} messages a scenario; platform down ${scale.platformDownMs / 1000} s, Postgres ${scale.postgresDownMs / 1000} s, Redis ${scale.redisDownMs / 1000} s)\n`,
  );
  console.log(table(outcomes));
  const bad = outcomes.filter(
    (o) =>
      o.stuck ||
      o.failed ||
      o.duplicateMessages ||
      o.unauditedWrites ||
      o.olderVersions ||
      o.clientGaveUp ||
      o.accepted !== o.sent,
  );
  process.exit(bad.length > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
