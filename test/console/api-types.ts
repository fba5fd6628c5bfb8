import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export const API_TYPES_PATH = join(__dirname, '../../libs/api-client/src/schema.d.ts');

/** The API types for an OpenAPI document, as libs/api-client/scripts/api-types.mjs prints them. */
export function apiTypesOf(document: string): string {
  const result = spawnSync(process.execPath, [join(__dirname, '../../libs/api-client/scripts/api-types.mjs')], {
    input: document,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(`api-types.mjs failed: ${result.stderr}`);
  }
  return result.stdout;
}
