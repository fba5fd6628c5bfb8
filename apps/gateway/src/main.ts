import 'reflect-metadata';
import { ConfigError, loadConfig } from '@dockbridge/config';
import { createGatewayApp } from './gateway.app';

/** The gateway role alone: ingress, admin API, health, metrics. Run workers separately (apps/worker). */
async function main(): Promise<void> {
  const config = loadConfig();
  const app = await createGatewayApp({ config, withWorker: config.gateway.withWorker });
  await app.listen(config.gateway.port, config.gateway.host);
  console.log(
    `dockbridge gateway listening on http://${config.gateway.host}:${config.gateway.port} (OpenAPI at /docs)`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
