// Runs the TypeScript sources in a plain `node` child process (`node -r ./test/support/child/ts-register.js
// apps/.../main.ts`): compiled on require with the same swc options as Jest, `@dockbridge/*` resolved
// to libs/*/src. Nest 12 (ESM) loads through Node's own require(esm).
const Module = require('node:module');
const { join } = require('node:path');
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');

const root = join(__dirname, '..', '..', '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@dockbridge\/([a-z0-9-]+)$/.exec(request);
  return resolve.call(this, alias ? join(root, 'libs', alias[1], 'src', 'index.ts') : request, ...rest);
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
