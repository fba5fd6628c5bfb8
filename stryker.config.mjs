// Mutation testing (`npm run mutation`): do the unit specs fail when the code they cover changes?
// `npm run mutation` runs each area in turn; `MUTATION_AREA=x12 npm run mutation` runs one.
import { createRequire } from 'node:module';
import { relative } from 'node:path';

const require = createRequire(import.meta.url);
const jestConfig = require('./jest.config.js');
const { root } = require('./test/support/tsconfig-paths');

/**
 * What is mutated, and the specs that judge it: the area's own, beside its code. Jest loads every
 * related spec for each mutant, so a spec elsewhere that imports the area (the pipeline's import
 * all of the libs) would cost seconds a mutant for tests that are not the area's.
 */
const AREAS = {
  x12: {
    mutate: ['libs/x12/src/*.ts', '!libs/x12/src/*.spec.ts', '!libs/x12/src/index.ts'],
    // Left out: fast-check's thousands of reads and reader.large.spec.ts's 3 MiB take seconds a mutant
    // once instrumented, for what the other specs pin down.
    specs: ['libs/x12/src/*.spec.ts', '!**/reader.{property,large}.spec.ts'],
  },
  platform: {
    // The *.types.ts files hold shapes; the DTO holds their validation.
    mutate: ['libs/platform/src/*.ts', '!libs/platform/src/*.spec.ts', '!libs/platform/src/{index,*.types}.ts'],
    specs: ['libs/platform/src/*.spec.ts'],
  },
  partners: {
    // Webhook signature verification and API keys; the rest of the lib is storage (e2e suites).
    mutate: ['libs/partners/src/webhooks/webhook-verifier.ts', 'libs/partners/src/api-key.ts'],
    specs: ['libs/partners/src/webhooks/webhook-verifier.spec.ts', 'libs/partners/src/api-key.spec.ts'],
  },
  pipeline: {
    // What decides a delivery's outcome and its retry, and what a replay resends.
    mutate: [
      'libs/pipeline/src/retry-policy.ts',
      'libs/pipeline/src/delivery/*.ts',
      '!libs/pipeline/src/delivery/*spec.ts',
      'libs/pipeline/src/replay/replay-message.ts',
    ],
    specs: ['libs/pipeline/src/retry-policy.spec.ts', 'libs/pipeline/src/{delivery,replay}/*.spec.ts'],
  },
};
const area = process.env.MUTATION_AREA;
if (area !== undefined && !(area in AREAS)) {
  throw new Error(`MUTATION_AREA=${area}: expected one of ${Object.keys(AREAS).join(', ')}`);
}
const chosen = area ? [AREAS[area]] : Object.values(AREAS);
const name = area ?? 'all';

// The unit project alone, as a flat config: Stryker's test environment (per-test coverage) replaces
// the top-level one only. Alias targets are made relative, so the specs load the sandbox's mutated copy.
const { displayName: _name, ...unit } = jestConfig.projects.find((p) => p.displayName === 'unit');
unit.moduleNameMapper = Object.fromEntries(
  Object.entries(unit.moduleNameMapper).map(([alias, file]) => [alias, `<rootDir>/${relative(root, file)}`]),
);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'jest',
  jest: {
    projectType: 'custom',
    configFile: 'jest.config.js',
    config: {
      ...unit,
      projects: undefined,
      testMatch: chosen.flatMap((a) => a.specs).map((glob) => (glob.startsWith('!') ? glob : `<rootDir>/${glob}`)),
      testTimeout: jestConfig.testTimeout,
    },
  },
  coverageAnalysis: 'perTest',
  mutate: chosen.flatMap((a) => a.mutate),
  ignorePatterns: ['dist', 'data', 'coverage', 'reports'],
  incremental: true,
  incrementalFile: `reports/mutation/incremental-${name}.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  thresholds: { high: 90, low: 80, break: 80 },
};
