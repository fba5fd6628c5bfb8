import { writeFileSync } from 'node:fs';
import { startSpine } from '../support/spine';
import { API_TYPES_PATH, apiTypesOf } from './api-types';

/** `npm run console:api`: a gateway on loopback (Postgres, Redis), its /docs-json, the API types (libs/api-client) rewritten. */
async function main(): Promise<void> {
  const spine = await startSpine({ 'log.level': 'error' });
  try {
    const document = await (await fetch(`${spine.url}/docs-json`)).text();
    writeFileSync(API_TYPES_PATH, apiTypesOf(document));
    console.log(`wrote ${API_TYPES_PATH}`);
  } finally {
    await spine.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
