import { storableText } from '@dockbridge/audit';
import { PREVIEW_SETS_DEFAULT, PREVIEW_SETS_MAX, type SetPage } from '@dockbridge/pipeline';
import { BadInput } from '../http-error.filter';
import { pageQuery } from '../page-query';

/** An X12 body as the OpenAPI shows it. */
export const X12_BODY = {
  description: 'The X12 interchange(s), as text (application/edi-x12, application/edi, text/plain or octet-stream)',
  schema: { type: 'string', example: 'ISA*00*          *00*          *ZZ*KETTLE ...~' },
} as const;

/** The X12 text of a body, or a 400 that says how to send it. */
export const textOf = (body: unknown): string => {
  if (typeof body === 'string' && body.trim() !== '') {
    return storableText(body);
  }
  throw new BadInput('Invalid EDI upload', [
    'body: send the X12 interchange as the request body (content-type application/edi-x12)',
  ]);
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
