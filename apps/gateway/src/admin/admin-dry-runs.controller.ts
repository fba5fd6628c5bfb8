import type { Readable } from 'node:stream';
import { Body, Controller, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { IsDefined, IsOptional, IsString } from 'class-validator';
import { PARTNER_ID_PATTERN } from '@dockbridge/partners';
import { DryRuns, EdiPreviewView, MappingTrial } from '@dockbridge/pipeline';
import { OperatorRoleGuard, RequiresRole } from '../auth/operator-role.guard';
import { X12_BODY_TYPES } from '../edi/edi.controller';
import { previewAnswer, PreviewApi, type PreviewQuery } from '../edi/preview';
import { X12_BODY } from '../edi/x12-body';
import { BadInput } from '../http-error.filter';
import { ApiErrors } from '../openapi/error.schemas';
import { MappingTrialSchema } from '../openapi/partner.schemas';
import { ChangesNothing } from './activity';
import { FreeFormJson, parse } from './admin.dto';

class MappingTrialDto {
  @ApiProperty({ description: 'A webhook body as the partner would send it (any JSON)', example: { order: 'PO-1' } })
  @IsDefined({ message: 'sample is required: a webhook body as the partner would send it' })
  @FreeFormJson()
  sample!: unknown;
  @ApiPropertyOptional({ description: 'The JSONata expression to try; absent: the published one' })
  @IsOptional()
  @IsString()
  expression?: string;
}

/**
 * What a file or a webhook body would become for a partner, without recording or delivering
 * anything: an operator checks a carrier's complaint or a mapping before publishing it.
 */
@ApiTags('admin')
@ApiBearerAuth()
@ApiErrors([401, 'Missing or wrong admin token'], [403, "The token's role does not allow this"])
@Controller('v1/admin')
@UseGuards(OperatorRoleGuard)
export class AdminDryRunsController {
  constructor(private readonly dryRuns: DryRuns) {}

  @Post('edi/preview')
  @HttpCode(200)
  @RequiresRole('operator')
  @ChangesNothing()
  @ApiConsumes(...X12_BODY_TYPES)
  @ApiOperation({
    summary:
      "Dry run of an X12 file as a partner would be told (the partner API's preview, for any partner): its documents and diagnostics; nothing is recorded or delivered",
  })
  @ApiBody(X12_BODY)
  @ApiQuery({
    name: 'partner',
    required: true,
    type: String,
    description: 'The partner whose settings apply',
    example: 'acme-wms',
  })
  @PreviewApi()
  @ApiErrors(
    [400, 'No partner named, an empty body, an invalid page, or a partner without settings.edi'],
    [404, 'No such partner'],
    [413, 'Body over gateway.bodyLimitBytes'],
  )
  async previewEdi(
    @Body() body: unknown,
    @Query() query: PreviewQuery & { partner?: string },
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EdiPreviewView | Readable> {
    const { partner, ...page } = query;
    if (!partner || !PARTNER_ID_PATTERN.test(partner)) {
      throw new BadInput('Invalid EDI preview', ['partner: the id of the partner whose settings apply (?partner=)']);
    }
    return previewAnswer(this.dryRuns, partner, body, page, reply);
  }

  @Post('partners/:id/mapping/test')
  @HttpCode(200)
  @RequiresRole('operator')
  @ChangesNothing()
  @ApiParam({ name: 'id', description: "The partner's id (a slug)", example: 'acme-wms' })
  @ApiOperation({
    summary:
      'Run a JSONata mapping (the given expression, else the published one) on a sample webhook body: the operations it makes, or the error at its position in the expression. Nothing is recorded',
  })
  @ApiBody({ type: MappingTrialDto })
  @ApiOkResponse({ type: MappingTrialSchema })
  @ApiErrors([400, 'No sample, or no expression and nothing published'], [404, 'No such partner'])
  async tryMapping(@Param('id') id: string, @Body() body: unknown): Promise<MappingTrial> {
    const dto = parse(MappingTrialDto, body, 'mapping trial');
    return this.dryRuns.tryMapping(id, dto.sample, dto.expression);
  }
}
