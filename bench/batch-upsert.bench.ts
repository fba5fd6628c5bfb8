/**
 * Sandbox batch-upsert benchmark: submits 25,000 documents to `document-jobs`, polls the job to
 * completion and reads its result, several runs; prints each run and the median.
 *
 *   npm run bench:batch            (RUNS=5 DOCUMENTS=25000 to change)
 *
 * The sandbox runs in this process on a loopback port, as in the tests.
 */
import 'reflect-metadata';
import { join } from 'node:path';
import { createSandboxApp } from '../apps/sandbox/src/sandbox.app';
import { readSeed } from '../apps/sandbox/src/state/seed';
import { benchDocument, median } from './bench-documents';

const LOCATION = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const TOKEN = 'sandbox-demo-location-token';
const RUNS = Number(process.env.RUNS ?? 5);
const DOCUMENTS = Number(process.env.DOCUMENTS ?? 25_000);

const documentFor = (i: number) => benchDocument(`ASN-${String(i).padStart(6, '0')}`, i);

async function main() {
  const app = await createSandboxApp({
    seed: readSeed(join(__dirname, '../../config/sandbox.seed.json')),
    controls: true,
    logger: false,
  });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const body = JSON.stringify(Array.from({ length: DOCUMENTS }, (_, i) => documentFor(i)));
  console.log(`batch upsert: ${DOCUMENTS} documents (${(body.length / 1048576).toFixed(1)} MiB body), ${RUNS} runs`);

  const seconds: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    await fetch(`${base}/__sandbox/reset`, { method: 'POST' });
    const started = performance.now();
    const submitted = await fetch(`${base}/api/v2/organisations/${LOCATION}/document-jobs/`, {
      method: 'POST',
      headers,
      body,
    });
    if (submitted.status !== 200) {
      throw new Error(`submit answered ${submitted.status}: ${await submitted.text()}`);
    }
    const job = (await submitted.json()) as { id: string };
    let record: { completedAt: string | null; errors: number; status: string };
    do {
      await new Promise((resolve) => setTimeout(resolve, 20));
      record = (await (
        await fetch(`${base}/api/v2/organisations/${LOCATION}/document-jobs/${job.id}`, { headers })
      ).json()) as typeof record;
    } while (!record.completedAt);
    const result = (await (
      await fetch(`${base}/api/v2/organisations/${LOCATION}/document-jobs/${job.id}/result`, { headers })
    ).json()) as unknown[];
    const elapsed = (performance.now() - started) / 1000;
    if (result.length !== DOCUMENTS || record.errors !== 0) {
      throw new Error(`run ${run}: ${result.length} entries, ${record.errors} errors`);
    }
    seconds.push(elapsed);
    console.log(
      `  run ${run}: ${elapsed.toFixed(2)} s (${Math.round(DOCUMENTS / elapsed)} documents/s), ${result.length} result entries, status ${record.status}`,
    );
  }
  const m = median(seconds);
  console.log(`median: ${m.toFixed(2)} s submit-to-result, ${Math.round(DOCUMENTS / m)} documents/s`);
  await app.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
