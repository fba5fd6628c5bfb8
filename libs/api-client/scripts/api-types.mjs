// The gateway's API types from its OpenAPI document (JSON on stdin), formatted as the repository
// formats them, on stdout. `npm run console:api` writes them to src/schema.d.ts;
// test/console/api-types.e2e-spec.ts fails when the committed file differs from what this prints.
import { text } from 'node:stream/consumers';
import openapiTS, { astToString } from 'openapi-typescript';
import * as prettier from 'prettier';

const TARGET = new URL('../src/schema.d.ts', import.meta.url).pathname;
const HEADER = "// Generated from the gateway's OpenAPI document by `npm run console:api`: do not edit.\n";

const document = JSON.parse(await text(process.stdin));
// defaultNonNullable off: a field with a default stays optional as the document says, so a request
// body may leave it out (the CLI sends only what the operator typed).
const source = HEADER + astToString(await openapiTS(document, { alphabetize: true, defaultNonNullable: false }));
const options = (await prettier.resolveConfig(TARGET)) ?? {};
process.stdout.write(await prettier.format(source, { ...options, filepath: TARGET }));
