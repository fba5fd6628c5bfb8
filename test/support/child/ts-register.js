// Runs the TypeScript sources in a plain `node` child process (`node -r ./test/support/child/ts-register.js
// apps/.../main.ts`): compiled on require with the same swc options as Jest, `@dockbridge/*` resolved
// through tsconfig.json's paths. Nest 12 (ESM) loads through Node's own require(esm).
const Module = require('node:module');
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');
const { aliases } = require('../tsconfig-paths');

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, aliases[request] ?? request, ...rest);
};
Module._extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    swcrc: false,
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
