import { Readable } from 'node:stream';
import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiQuery, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { PartnerProfile } from '@dockbridge/partners';
import type { DryRuns, EdiPreviewView } from '@dockbridge/pipeline';
import { BadInput } from '../http-error.filter';
import { EdiPreviewSchema } from '../openapi/ingress.schemas';
import { setPageOf, textOf } from './x12-body';

/** What a preview's query may say: a page of its sets, or every set (`full=1`). */
export interface PreviewQuery {
  setsAfter?: string;
  setsLimit?: string;
  full?: string;
}

export const NDJSON = 'application/x-ndjson';

/**
 * A preview as asked: one page of the sets (JSON), or with `full=1` every set as NDJSON lines,
 * written as they are mapped, so the answer is never one body many times the file.
 */
export async function previewAnswer(
  dryRuns: DryRuns,
  partner: PartnerProfile | string,
  body: unknown,
  query: PreviewQuery,
  reply: FastifyReply,
): Promise<EdiPreviewView | Readable> {
  if (!wantsFull(query)) {
    return dryRuns.previewEdi(partner, textOf(body), setPageOf(query.setsAfter, query.setsLimit));
  }
  const lines = await dryRuns.previewEdiLines(partner, textOf(body));
  reply.type(NDJSON);
  return Readable.from(
    (async function* () {
      for await (const line of lines) {
        yield `${JSON.stringify(line)}\n`;
      }
    })(),
  );
}

function wantsFull(query: PreviewQuery): boolean {
  if (query.full === undefined || query.full === '0' || query.full === 'false') {
    return false;
  }
  if (query.full !== '1' && query.full !== 'true') {
    throw new BadInput('Invalid EDI preview', ['full must be 1 (every set, as NDJSON) or 0']);
  }
  if (query.setsAfter !== undefined || query.setsLimit !== undefined) {
    throw new BadInput('Invalid EDI preview', [
      'full=1 answers every set: send setsAfter and setsLimit only for a page (without full)',
    ]);
  }
  return true;
}

/** The preview's query parameters and its two answers, as the OpenAPI document shows them. */
export const PreviewApi = () =>
  applyDecorators(
    ApiExtraModels(EdiPreviewSchema),
    ApiQuery({
      name: 'setsAfter',
      required: false,
      type: 'integer',
      description: 'The nextSetsAfter of the previous page (sets skipped, from 0)',
    }),
    ApiQuery({
      name: 'setsLimit',
      required: false,
      type: 'integer',
      description: 'Transaction sets per page, 1–1000 (default 100)',
    }),
    ApiQuery({
      name: 'full',
      required: false,
      enum: ['1', '0'],
      description: `1: every set, streamed as ${NDJSON} instead of one page`,
    }),
    ApiOkResponse({
      description: `One page of the sets (JSON); with full=1, ${NDJSON}: a line per set as it is mapped ({"type":"set",...}), per interchange as it ends ({"type":"interchange",...,"refusedAtEnd"}: true means none of its sets goes out after all), per problem outside interchanges ({"type":"problem","message"}; "refusesPayload": true means nothing of the file goes out), and last {"type":"summary",...}`,
      content: {
        'application/json': { schema: { $ref: getSchemaPath(EdiPreviewSchema) } },
        [NDJSON]: { schema: { type: 'string' } },
      },
    }),
  );
