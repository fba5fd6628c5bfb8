import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// Built into dist/console and served by the gateway at /console (apps/gateway/src/console/console-static.ts).
export default defineConfig({
  root: 'apps/console',
  base: '/console/',
  // The one lib the console may import (a dependency rule): the API's types and client, shared with the CLI.
  resolve: {
    alias: {
      '@dockbridge/api-client': fileURLToPath(new URL('../../libs/api-client/src/index.ts', import.meta.url)),
    },
  },
  build: { outDir: '../../dist/console', emptyOutDir: true, chunkSizeWarningLimit: 600 },
  clearScreen: false,
  logLevel: 'warn',
});
