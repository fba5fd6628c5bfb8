// Nest 12 is ESM-only: @swc/jest compiles TypeScript and those ESM packages to CommonJS
// (ts-jest cannot load Nest 12 on Node 20). See ../shared/STACK.md.
const { aliases } = require('./test/support/tsconfig-paths');

const swc = [
  '@swc/jest',
  {
    swcrc: false,
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
const common = {
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|file-type|load-esm|strtok3|token-types|peek-readable|@tokenizer|uint8array-extras|graphql-request|content-disposition)/)',
  ],
  moduleNameMapper: Object.fromEntries(Object.entries(aliases).map(([alias, file]) => [`^${alias}$`, file])),
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
};

/** @type {import('jest').Config} */
module.exports = {
  // End-to-end suites start real servers; per-project testTimeout is not honoured, so it is set here.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    // One use case on a real Postgres with a scripted platform (no Redis, no sandbox): seconds.
    { ...common, displayName: 'medium', testMatch: ['<rootDir>/libs/**/*.medium-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
