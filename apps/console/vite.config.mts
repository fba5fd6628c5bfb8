import { defineConfig } from 'vite';

// Built into dist/console and served by the gateway at /console (apps/gateway/src/console/console-static.ts).
export default defineConfig({
  root: 'apps/console',
  base: '/console/',
  build: { outDir: '../../dist/console', emptyOutDir: true, chunkSizeWarningLimit: 600 },
  clearScreen: false,
  logLevel: 'warn',
});
