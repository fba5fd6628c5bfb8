// The dependency rules of docs/architecture.md, checked by `npm run lint` (depcruise). Paths are
// resolved through tsconfig.json, the one home of the @dockbridge/* aliases.
const SPEC = '\\.(spec|e2e-spec)\\.ts$';

/** I/O that the pure domain (libs/x12, libs/mapping) must not reach: files, sockets, processes,
 *  the database, Redis and queues, HTTP clients, and Nest (which brings a container and a lifecycle). */
const IO_PACKAGES =
  'node_modules/(pg|pg-[^/]+|typeorm|typeorm-pglite|@electric-sql/pglite|ioredis|bullmq|@nestjs/[^/]+|undici|graphql-request|ssh2|ssh2-sftp-client)/';
const IO_MODULES = [
  '^(node:)?(fs|fs/promises|net|tls|http|https|http2|dgram|dns|child_process|cluster|worker_threads|readline)$',
  IO_PACKAGES,
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle makes load order matter and hides which module owns what.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'libs-not-to-apps',
      severity: 'error',
      comment: 'Dependencies run apps -> libs: a lib never imports an app.',
      from: { path: '^libs/' },
      to: { path: '^apps/' },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment:
        'libs/x12 and libs/mapping are plain functions over plain data: no I/O, no Nest (specs may read fixtures).',
      from: { path: '^libs/(x12|mapping)/', pathNot: SPEC },
      to: { path: IO_MODULES },
    },
    {
      name: 'domain-uses-only-types-of-other-libs',
      severity: 'error',
      comment:
        'libs/x12 and libs/mapping take only types from the other libs: a lib index brings its I/O along. ' +
        'Exception today: canonical-operation.ts validates with DocumentInputDto of @dockbridge/platform.',
      from: { path: '^libs/(x12|mapping)/', pathNot: [SPEC, '^libs/mapping/src/canonical-operation\\.ts$'] },
      to: { path: '^libs/(platform|audit|partners|pipeline|config)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'platform-knows-no-store-or-queue',
      severity: 'error',
      comment: 'libs/platform is the platform client only: no database, no queues.',
      from: { path: '^libs/platform/' },
      to: { path: ['^libs/(audit|partners|pipeline)/', 'node_modules/(pg|typeorm|ioredis|bullmq)/'] },
    },
    {
      name: 'cli-is-an-http-client',
      severity: 'error',
      comment:
        'The CLI talks to the gateway through the client generated from its OpenAPI document (libs/api-client); ' +
        'of the other libs it takes types only (migrate.ts, which runs the migrations itself, is the exception).',
      from: { path: '^apps/cli/', pathNot: [SPEC, '^apps/cli/src/migrate\\.ts$'] },
      to: { path: '^libs/(?!api-client/)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'console-is-an-http-client',
      severity: 'error',
      comment:
        'The console (a browser app) reaches the gateway through the admin API only, with the client and types ' +
        'generated from its OpenAPI document (libs/api-client): nothing else of the libs or the other apps is bundled into it.',
      from: { path: '^apps/console/' },
      to: { path: ['^libs/(?!api-client/src/)', '^apps/(?!console/)'] },
    },
    {
      name: 'api-client-is-browser-safe',
      severity: 'error',
      comment:
        'libs/api-client is bundled into the console and loaded by the CLI: no I/O packages, nothing of the ' +
        'other libs or the apps (its generator script, run by Node, is outside src/).',
      from: { path: '^libs/api-client/src/', pathNot: SPEC },
      to: { path: [IO_PACKAGES, '^libs/(?!api-client/)', '^apps/'] },
    },
    {
      name: 'api-client-uses-no-node-builtins',
      severity: 'error',
      comment: 'A Node built-in (node:fs, node:url, ...) does not exist in the browser the console runs in.',
      from: { path: '^libs/api-client/src/', pathNot: SPEC },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve (a typo, a package missing from package.json).',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|data|coverage)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.cjs', '.mjs', '.json', '.d.ts'],
    },
  },
};
