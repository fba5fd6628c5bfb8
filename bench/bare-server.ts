/** The peer of the webhook ingest benchmark: a bare Fastify hello-world that reads the JSON body and answers 202. */
import Fastify from 'fastify';

const port = Number(process.argv[2] ?? 0);
const app = Fastify({ logger: false });
app.post('/hello', async (request, reply) =>
  reply.status(202).send({ ok: true, size: JSON.stringify(request.body).length }),
);
// A failed listen rejects unhandled, which ends the process: the benchmark sees it exit.
void app.listen({ port, host: '127.0.0.1' }).then(() => process.send?.('ready'));
