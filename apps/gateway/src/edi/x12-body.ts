import type { IncomingMessage } from 'node:http';
import { errorCodes, type FastifyRequest } from 'fastify';
import { storableText } from '@dockbridge/audit';
import { PREVIEW_SETS_DEFAULT, PREVIEW_SETS_MAX, type SetPage } from '@dockbridge/pipeline';
import { BadInput } from '../http-error.filter';
import { pageQuery } from '../page-query';

/** Content types an X12 body may come with. */
export const X12_BODY_TYPES = ['application/edi-x12', 'application/edi', 'text/plain', 'application/octet-stream'];
/** The route whose X12 body is handed over as the request stream, stored as it arrives (`POST /v1/edi`). */
export const X12_UPLOAD_ROUTE = '/v1/edi';

const EXAMPLE = 'ISA*00*          *00*          *ZZ*KETTLE ...~';
/** An X12 body as the OpenAPI shows it. */
export const X12_BODY = {
  description: 'The X12 interchange(s), as text (application/edi-x12, application/edi, text/plain or octet-stream)',
  schema: { type: 'string', example: EXAMPLE },
} as const;
/** The upload's body: any size up to the upload limit, never held whole. */
export const X12_UPLOAD_BODY = {
  description:
    'The X12 file as sent (application/edi-x12, application/edi, text/plain or octet-stream): UTF-8, or kept as latin1; up to sftp.maxFileBytes (256 MiB by default), not gateway.bodyLimitBytes',
  schema: { type: 'string', example: EXAMPLE },
} as const;

/**
 * The body parser of the X12 types: the upload route gets the request stream itself, read as it
 * arrives by the upload (whose limit is sftp.maxFileBytes: no body limit applies here); every other
 * route (the preview; a webhook sent as text/plain) gets the body as text within its route's limit,
 * as Fastify's own string parser reads it.
 */
export function parseX12Body(
  request: FastifyRequest,
  payload: IncomingMessage,
  done: (error: Error | null, body?: unknown) => void,
): void {
  if (request.method === 'POST' && request.routeOptions.url === X12_UPLOAD_ROUTE) {
    done(null, payload);
    return;
  }
  const limit = request.routeOptions.bodyLimit;
  const declared = Number(request.headers['content-length']);
  if (declared > limit) {
    done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const finish = (error: Error | null, body?: string) => {
    payload.off('data', onData).off('end', onEnd).off('error', onError);
    done(error, body);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) {
      finish(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    } else {
      chunks.push(bytes);
    }
  };
  const onEnd = () => {
    // A preParsing stream that changed the bytes says how many it was sent (Fastify's own rule).
    const sent = (payload as { receivedEncodedLength?: number }).receivedEncodedLength || size;
    if (!Number.isNaN(declared) && sent !== declared) {
      finish(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    } else {
      finish(null, Buffer.concat(chunks, size).toString('utf8'));
    }
  };
  const onError = (error: Error & { statusCode?: number }) => {
    if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) {
      error.statusCode = 400;
    }
    finish(error);
  };
  payload.on('data', onData).on('end', onEnd).on('error', onError);
  payload.resume();
}

/** A 400 that says how to send an X12 body. */
export const noX12Body = () =>
  new BadInput('Invalid EDI upload', [
    'body: send the X12 interchange as the request body (content-type application/edi-x12)',
  ]);

/** The X12 text of a body, or a 400 that says how to send it. */
export const textOf = (body: unknown): string => {
  if (typeof body === 'string' && body.trim() !== '') {
    return storableText(body);
  }
  throw noX12Body();
};

/** A page of a preview's sets from its query parameters. */
export function setPageOf(after: string | undefined, limit: string | undefined): SetPage {
  const page = pageQuery(after, limit, {
    what: 'transaction sets',
    afterName: 'setsAfter',
    afterIs: 'a whole number from 0 (the nextSetsAfter of a previous page)',
    limitName: 'setsLimit',
    defaultLimit: PREVIEW_SETS_DEFAULT,
    maxLimit: PREVIEW_SETS_MAX,
  });
  return { after: page.after ?? 0, limit: page.limit };
}
