import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Caller, CurrentCaller, TokenGuard } from '../http/caller';
import { boolParam, intParam, ReferenceQuery, referenceOptions } from '../http/query';
import { DocumentsService, present } from './documents.service';

/** REST documents, `/api/v2/organisations/{orgId}/documents` (platform-interface.md). */
@Controller('api/v2/organisations/:orgId/documents')
@UseGuards(TokenGuard)
export class DocumentsController {
  constructor(private readonly documents: DocumentsService) {}

  @Get()
  list(
    @CurrentCaller() caller: Caller,
    @Param('orgId') orgId: string,
    @Query() query: { pageNumber?: string; pageSize?: string },
  ) {
    caller.require(orgId, 'ViewDocuments');
    const pageNumber = intParam('pageNumber', query.pageNumber, 1, 1, Number.MAX_SAFE_INTEGER);
    const pageSize = intParam('pageSize', query.pageSize, 100, 1, 1000);
    const result = this.documents.list(this.documents.location(orgId), (pageNumber - 1) * pageSize, pageSize);
    return { ...result, data: result.data.map(present) };
  }

  @Get(':docId')
  get(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string, @Param('docId') docId: string) {
    caller.require(orgId, 'ViewDocuments');
    return present(this.documents.get(this.documents.location(orgId), docId));
  }

  @Post()
  @HttpCode(201)
  create(
    @CurrentCaller() caller: Caller,
    @Param('orgId') orgId: string,
    @Body() body: unknown,
    @Query() query: ReferenceQuery,
  ) {
    caller.require(orgId, 'ManageDocuments');
    return present(this.documents.create(this.documents.location(orgId), body, referenceOptions(query)));
  }

  @Put(':docId')
  put(
    @CurrentCaller() caller: Caller,
    @Param('orgId') orgId: string,
    @Param('docId') docId: string,
    @Body() body: unknown,
    @Query() query: ReferenceQuery & { upsert?: string },
    @Res() reply: FastifyReply,
  ) {
    caller.require(orgId, 'ManageDocuments');
    const location = this.documents.location(orgId);
    const outcome = this.documents.put(
      location,
      docId,
      body,
      boolParam('upsert', query.upsert),
      referenceOptions(query),
    );
    void reply.status(outcome === 'Created' ? 201 : 200).send();
  }

  @Delete(':docId')
  @HttpCode(200)
  delete(@CurrentCaller() caller: Caller, @Param('orgId') orgId: string, @Param('docId') docId: string): void {
    caller.require(orgId, 'ManageDocuments');
    this.documents.delete(this.documents.location(orgId), docId);
  }
}
