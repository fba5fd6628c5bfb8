import { readFileSync } from 'node:fs';
import { Spine, startSpine } from '../support/spine';
import { API_TYPES_PATH, apiTypesOf } from './api-types';

/* The console and the CLI are typed by libs/api-client/src/schema.d.ts, generated from the OpenAPI document: a change
   to the document that is not regenerated (`npm run console:api`) fails here, not in a support engineer's browser. */
describe('API client types', () => {
  let spine: Spine;

  beforeAll(async () => {
    spine = await startSpine();
  });
  afterAll(() => spine?.close());

  it('are the ones the OpenAPI document gives (else run npm run console:api and commit)', async () => {
    const document = await (await fetch(`${spine.url}/docs-json`)).text();
    expect(readFileSync(API_TYPES_PATH, 'utf8')).toBe(apiTypesOf(document));
  });
});
