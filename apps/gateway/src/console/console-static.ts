import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';

export const CONSOLE_PATH = '/console';

/**
 * The built console (`npm run build:console`): dist/console beside dist/apps when running the build,
 * <repo>/dist/console when running the sources (tests).
 */
export function consoleDirectory(): string | undefined {
  const up = join(__dirname, '../../../..');
  return [join(up, 'console'), join(up, 'dist/console')].find((dir) => existsSync(join(dir, 'index.html')));
}

// The console's own files only: it calls the admin API on this origin, with the token from session storage.
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The operator console at /console: public static files (no credential: the API calls carry the
 * token). Hashed assets are cached for good; index.html never, so a new build shows at once.
 */
export async function mountConsole(app: NestFastifyApplication): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  const root = consoleDirectory();
  if (!root) {
    fastify.get(CONSOLE_PATH, (_request, reply) =>
      reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build` (or `npm run build:console`).'),
    );
    return;
  }
  // The page itself at /console and /console/ (one route: trailing slashes are ignored); the rest are its assets.
  const index = readFileSync(join(root, 'index.html'));
  fastify.get(CONSOLE_PATH, (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .send(index),
  );
  await fastify.register(fastifyStatic, {
    root,
    prefix: `${CONSOLE_PATH}/`,
    decorateReply: false,
    index: false,
    cacheControl: false,
    setHeaders: (reply: FastifyReply, path: string) => {
      reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
      if (path.endsWith('.html')) {
        reply.header('cache-control', 'no-cache').header('content-security-policy', CSP);
      } else {
        reply.header('cache-control', 'public, max-age=31536000, immutable');
      }
    },
  });
}
