/**
 * The framework's own ceiling for the webhook ingest benchmark: a NestJS hello-world on the Fastify
 * adapter, set up as the gateway is (raw body kept), whose one route answers 202 with the size of
 * the JSON body. What separates it from bare Fastify is the framework; what separates the gateway
 * from it is the work of ingest (verify, commit, enqueue).
 */
import 'reflect-metadata';
import { Controller, HttpCode, Module, Post, Req } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';

@Controller()
class HelloController {
  @Post('hello')
  @HttpCode(202)
  hello(@Req() request: FastifyRequest & { rawBody?: Buffer }) {
    return { ok: true, size: request.rawBody?.length ?? 0 };
  }
}

@Module({ controllers: [HelloController] })
class HelloModule {}

async function main() {
  const app = await NestFactory.create<NestFastifyApplication>(HelloModule, new FastifyAdapter(), {
    rawBody: true,
    logger: false,
  });
  await app.listen(Number(process.argv[2] ?? 0), '127.0.0.1');
  process.send?.('ready');
}
void main();
