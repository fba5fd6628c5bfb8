import { Body, Controller, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { isPartnerFileName, PARTNER_FILE_NAME_MAX, type PartnerProfile } from '@dockbridge/partners';
import { AcceptMessage, DryRuns, EdiPreviewView, X12_CONTENT_TYPE } from '@dockbridge/pipeline';
import { CurrentPartner, PartnerApiKeyGuard } from '../auth/partner-api-key.guard';
import { BadInput } from '../http-error.filter';
import { ApiErrors } from '../openapi/error.schemas';
import { EdiPreviewSchema } from '../openapi/ingress.schemas';
import { AcceptedSchema } from '../openapi/message.schemas';
import { setPageOf, textOf, X12_BODY } from './x12-body';

/** Content types an X12 body may come with; each is read as text. */
export const X12_BODY_TYPES = ['application/edi-x12', 'application/edi', 'text/plain', 'application/octet-stream'];

/** The upload's file name, optional (found again by it, as SFTP uploads are): the rules of an SFTP file name. */
const fileNameOf = (fileName: unknown): string | undefined => {
  if (fileName === undefined) {
    return undefined;
  }
  if (isPartnerFileName(fileName)) {
    return fileName;
  }
  throw new BadInput('Invalid EDI upload', [
    `fileName: 1 to ${PARTNER_FILE_NAME_MAX} characters, without "/", "\\" or control characters, not "." or ".."`,
  ]);
};

/** X12 over HTTP: the same flow as an SFTP upload, and a dry run that delivers nothing. */
@ApiTags('edi')
@ApiHeader({ name: 'X-API-Key', description: 'The partner API key' })
@ApiErrors([401, 'Missing, unknown, expired or revoked API key (the connection is closed)'])
@Controller('v1/edi')
@UseGuards(PartnerApiKeyGuard)
export class EdiController {
  constructor(
    private readonly accept: AcceptMessage,
    private readonly dryRuns: DryRuns,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiConsumes(...X12_BODY_TYPES)
  @ApiBody(X12_BODY)
  @ApiOperation({ summary: 'Upload an X12 file (850/856); the 997 lands in the partner outbound folder' })
  @ApiQuery({
    name: 'fileName',
    required: false,
    type: String,
    description: "The file's name, recorded so the message can be found by it (admin search fileName)",
  })
  @ApiResponse({
    status: 202,
    type: AcceptedSchema,
    description: 'Recorded durably; translation, acknowledgment and delivery follow',
  })
  @ApiErrors(
    [400, 'An empty body, or a fileName an SFTP file could not have'],
    [413, 'Body over gateway.bodyLimitBytes'],
  )
  async upload(
    @CurrentPartner() partner: PartnerProfile,
    @Body() body: unknown,
    @Query('fileName') fileName?: unknown,
  ) {
    const name = fileNameOf(fileName);
    const raw = textOf(body);
    const accepted = await this.accept.execute({
      partnerId: partner.id,
      channel: 'http-edi',
      rawPayload: raw,
      contentType: X12_CONTENT_TYPE,
      metadata: {
        size: Buffer.byteLength(raw),
        via: 'http',
        platformAccount: partner.platformAccount,
        ...(name !== undefined && { fileName: name }),
      },
    });
    return { messageId: accepted.messageId, status: 'received' };
  }

  @Post('preview')
  @HttpCode(200)
  @ApiConsumes(...X12_BODY_TYPES)
  @ApiOperation({
    summary:
      'Dry run: the documents a file would produce and its diagnostics; nothing is recorded or delivered. The file is counted whole (summary); its sets come a page at a time (setsLimit 1–1000, default 100; setsAfter = nextSetsAfter), each with its documents',
  })
  @ApiBody(X12_BODY)
  @ApiQuery({
    name: 'setsAfter',
    required: false,
    type: 'integer',
    description: 'The nextSetsAfter of the previous page (sets skipped, from 0)',
  })
  @ApiQuery({
    name: 'setsLimit',
    required: false,
    type: 'integer',
    description: 'Transaction sets per page, 1–1000 (default 100)',
  })
  @ApiOkResponse({ type: EdiPreviewSchema })
  @ApiErrors(
    [400, 'An empty body, an invalid page, or a partner without settings.edi'],
    [413, 'Body over gateway.bodyLimitBytes'],
  )
  async preview(
    @CurrentPartner() partner: PartnerProfile,
    @Body() body: unknown,
    @Query('setsAfter') after?: string,
    @Query('setsLimit') limit?: string,
  ): Promise<EdiPreviewView> {
    const page = setPageOf(after, limit);
    return this.dryRuns.previewEdi(partner, textOf(body), page);
  }
}
