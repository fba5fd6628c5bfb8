import { Readable } from 'node:stream';
import { Body, Controller, HttpCode, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiBody, ApiConsumes, ApiHeader, ApiOperation, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { isPartnerFileName, PARTNER_FILE_NAME_MAX, type PartnerProfile } from '@dockbridge/partners';
import { AppConfig } from '@dockbridge/config';
import { DryRuns, EdiPreviewView, ReceiveUpload } from '@dockbridge/pipeline';
import { CurrentPartner, PartnerApiKeyGuard } from '../auth/partner-api-key.guard';
import { BadInput } from '../http-error.filter';
import { ApiErrors } from '../openapi/error.schemas';
import { AcceptedSchema } from '../openapi/message.schemas';
import { previewAnswer, PreviewApi, type PreviewQuery } from './preview';
import { noX12Body, X12_BODY, X12_BODY_TYPES, X12_UPLOAD_BODY } from './x12-body';

export { X12_BODY_TYPES } from './x12-body';

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
    private readonly uploads: ReceiveUpload,
    private readonly dryRuns: DryRuns,
    private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(202)
  @ApiConsumes(...X12_BODY_TYPES)
  @ApiBody(X12_UPLOAD_BODY)
  @ApiOperation({
    summary: 'Upload an X12 file (850/856); the 997 lands in the partner outbound folder',
    description:
      'The body is stored as it arrives, as an SFTP upload is (1 MiB chunks, the same size limit: sftp.maxFileBytes), and the file is listed in the partner inbound folder under fileName (or http-<id>.x12). The answer comes once the whole file and its message are committed. The whole request must arrive within gateway.requestTimeoutMs (408 otherwise); SFTP suits slow links.',
  })
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
    [400, 'An empty body, a body with a NUL byte (X12 is text), or a fileName an SFTP file could not have'],
    [
      413,
      'Body over sftp.maxFileBytes (256 MiB by default), naming the limit: refused as soon as it crosses it (a declared Content-Length over it before a byte is read), and the connection closed; nothing is recorded',
    ],
    [
      503,
      'The gateway is receiving its most uploads at once (SFTP and HTTP: sftp.maxConcurrentUploads, or sftp.maxUploadsPerPartner of this partner), or they hold sftp.maxHeldBytes not yet stored; try again shortly',
    ],
  )
  async upload(
    @CurrentPartner() partner: PartnerProfile,
    @Req() request: FastifyRequest,
    @Query('fileName') fileName?: unknown,
  ) {
    const name = fileNameOf(fileName);
    const body = request.body;
    if (!(body instanceof Readable)) {
      throw noX12Body(); // not one of the X12 types
    }
    const declared = Number(request.headers['content-length']);
    const received = await this.uploads.receiveStream(body, {
      partnerId: partner.id,
      platformAccount: partner.platformAccount,
      fileName: name,
      maxBytes: this.config.sftp.maxFileBytes,
      declaredBytes: Number.isSafeInteger(declared) ? declared : undefined,
    });
    return { messageId: received.messageId, status: 'received' };
  }

  @Post('preview')
  @HttpCode(200)
  @ApiConsumes(...X12_BODY_TYPES)
  @ApiOperation({
    summary:
      'Dry run: the documents a file would produce and its diagnostics; nothing is recorded or delivered. The file is counted whole (summary); its sets come a page at a time (setsLimit 1–1000, default 100; setsAfter = nextSetsAfter), each with its documents, or all of them as NDJSON (full=1)',
  })
  @ApiBody(X12_BODY)
  @PreviewApi()
  @ApiErrors(
    [400, 'An empty body, an invalid page, or a partner without settings.edi'],
    [413, 'Body over gateway.bodyLimitBytes'],
  )
  async preview(
    @CurrentPartner() partner: PartnerProfile,
    @Body() body: unknown,
    @Query() query: PreviewQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EdiPreviewView | Readable> {
    return previewAnswer(this.dryRuns, partner, body, query, reply);
  }
}
