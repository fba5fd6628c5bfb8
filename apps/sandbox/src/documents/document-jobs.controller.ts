import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { Caller, CurrentCaller, TokenGuard } from '../http/caller';
import { ReferenceQuery, referenceOptions } from '../http/query';
import { DocumentJobsService } from './document-jobs.service';
import { DocumentsService } from './documents.service';

/** REST batch document jobs, `/api/v2/organisations/{orgId}/document-jobs` (platform-interface.md). */
@Controller('api/v2/organisations/:orgId/document-jobs')
@UseGuards(TokenGuard)
export class DocumentJobsController {
  constructor(
    private readonly documents: DocumentsService,
    private readonly jobs: DocumentJobsService,
  ) {}

  @Post()
  @HttpCode(200)
  submitUpsert(
    @CurrentCaller() caller: Caller,
    @Param('orgId') orgId: string,
    @Body() body: unknown,
    @Query() query: ReferenceQuery,
  ) {
    caller.require(orgId, 'ManageDocuments');
    return this.jobs.submitUpsert(this.documents.location(orgId), body, referenceOptions(query));
  }

  /** Declared before `:batchId` so "documents" is never taken for a job id. */
  @Delete('documents')
  @HttpCode(200)
  submitDelete(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string, @Body() body: unknown) {
    caller.require(orgId, 'ManageDocuments');
    return this.jobs.submitDelete(this.documents.location(orgId), body);
  }

  @Get()
  list(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string) {
    caller.require(orgId, 'ManageDocuments');
    return this.jobs.list(this.documents.location(orgId));
  }

  @Get(':batchId')
  get(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string, @Param('batchId') batchId: string) {
    caller.require(orgId, 'ManageDocuments');
    return this.jobs.get(this.documents.location(orgId), batchId);
  }

  @Get(':batchId/result')
  result(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string, @Param('batchId') batchId: string) {
    caller.require(orgId, 'ManageDocuments');
    return this.jobs.result(this.documents.location(orgId), batchId);
  }

  @Delete(':batchId')
  @HttpCode(200)
  cancel(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string, @Param('batchId') batchId: string) {
    caller.require(orgId, 'ManageDocuments');
    return this.jobs.cancel(this.documents.location(orgId), batchId);
  }
}
