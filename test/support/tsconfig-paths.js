// The @dockbridge/* aliases from tsconfig.json, their one home, for Jest (jest.config.js) and the
// child-process loader (child/ts-register.js). tsconfig.json is kept plain JSON so this can read it.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));

/** Alias -> absolute path of its entry file. */
const aliases = Object.fromEntries(
  Object.entries(tsconfig.compilerOptions.paths).map(([alias, [target]]) => [alias, join(root, target)]),
);

// `npm run build` rewrites the aliases with .swcrc's copy (swc reads no tsconfig): check it agrees.
const swcPaths = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8')).jsc.paths;
const differs = (a, b) =>
  JSON.stringify(Object.keys(a).sort()) !== JSON.stringify(Object.keys(b).sort()) ||
  Object.keys(a).some((alias) => join(root, a[alias][0]) !== join(root, b[alias][0]));
if (differs(tsconfig.compilerOptions.paths, swcPaths)) {
  throw new Error('.swcrc jsc.paths differ from tsconfig.json compilerOptions.paths: copy them over');
}

module.exports = { root, aliases };
