import { Body, Controller, HttpCode, Post, Query, Res, UseGuards } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Caller, CurrentCaller, TokenGuard } from '../http/caller';
import { PlatformError } from '../http/platform-error';
import { intParam } from '../http/query';
import { SandboxState } from '../state/sandbox-state';
import { exportSources, parseExportRequest, toCsv, toRow } from './export';

/** `POST /api/v2/bookings?skip&count`: the bookings export (platform-interface.md, "REST bookings export"). */
@Controller('api/v2/bookings')
@UseGuards(TokenGuard)
export class BookingsExportController {
  constructor(private readonly state: SandboxState) {}

  @Post()
  @HttpCode(200)
  export(
    @CurrentCaller() caller: Caller,
    @Query() query: { skip?: string; count?: string },
    @Body() body: unknown,
    @Res() reply: FastifyReply,
  ): void {
    if (!caller.permissions.has('ExportBookings')) {
      throw PlatformError.forbidden('the token lacks the ExportBookings permission');
    }
    const skip = intParam('skip', query.skip, 0, 0, Number.MAX_SAFE_INTEGER);
    const count = intParam('count', query.count, 100, 1, 1000);
    const request = parseExportRequest(body);
    const layout = this.state.layouts.get(request.layoutId);
    if (!layout) {
      throw PlatformError.badRequest('Invalid export request', [`layoutId: no layout ${request.layoutId}`]);
    }

    const sources = exportSources(this.state, caller, request);
    const rows = sources.slice(skip, skip + count).map((source) => toRow(layout, source));
    void reply.header('x-total-count', String(sources.length));
    if (request.format === 'csv') {
      void reply.type('text/csv; charset=utf-8').send(toCsv(layout, rows));
      return;
    }
    void reply.send({ data: rows, skip, count, totalRecords: sources.length });
  }
}
