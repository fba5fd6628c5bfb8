import 'reflect-metadata';
import { ConfigError, loadConfig } from '@dockbridge/config';
import { createSandboxApp } from './sandbox.app';
import { readSeed, SeedError } from './state/seed';

async function main(): Promise<void> {
  const config = loadConfig();
  const seed = readSeed(config.sandbox.seedPath);
  const app = await createSandboxApp({
    seed,
    controls: config.sandbox.controls,
    bodyLimitBytes: config.sandbox.bodyLimitBytes,
  });
  // Only these: hooking every signal Nest knows (SIGILL, SIGTRAP among them) turns a V8 fatal error into a spin instead of an exit.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  await app.listen(config.sandbox.port, config.sandbox.host);
  const url = `http://${config.sandbox.host}:${config.sandbox.port}`;
  const demo = seed.tokens[0];
  console.log(`Sandbox platform listening on ${url}`);
  console.log(`  GraphQL:  POST ${url}/api/v1/graphql`);
  console.log(`  REST:     ${url}/api/v2/organisations/{orgId}/documents`);
  if (demo) {
    console.log(
      `  Demo token (${demo.permissions.length} permissions, organisations ${demo.organisationIds.join(', ')}): ${demo.token}`,
    );
  }
  console.log(
    config.sandbox.controls
      ? `  Controls: ${url}/__sandbox/{faults,reset,stats,jobs}`
      : '  Controls: off (SANDBOX_CONTROLS=on enables them)',
  );
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof SeedError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
