import { Body, Controller, Delete, Get, HttpCode, Post } from '@nestjs/common';
import { DocumentJobsService } from '../documents/document-jobs.service';
import { PlatformError } from '../http/platform-error';
import { SandboxState } from '../state/sandbox-state';
import { FaultInjector } from './faults';
import { RequestStats } from './request-stats';

/** `/__sandbox`: fault injection, reset, stats and job control for tests, demos and benchmarks. No token. */
@Controller('__sandbox')
export class ControlsController {
  constructor(
    private readonly state: SandboxState,
    private readonly faults: FaultInjector,
    private readonly stats: RequestStats,
    private readonly jobs: DocumentJobsService,
  ) {}

  @Post('faults')
  @HttpCode(200)
  setFaults(@Body() body: { rules?: unknown }) {
    return { rules: this.faults.set(body?.rules) };
  }

  @Get('faults')
  listFaults() {
    return { rules: this.faults.list() };
  }

  @Delete('faults')
  @HttpCode(200)
  clearFaults() {
    this.faults.clear();
    return { rules: [] };
  }

  /** Back to the seed: documents, bookings, jobs, faults and stats all cleared. */
  @Post('reset')
  @HttpCode(200)
  reset() {
    this.jobs.clear();
    this.jobs.resume();
    this.state.reset();
    this.faults.clear();
    this.stats.clear();
    return { reset: true };
  }

  @Get('stats')
  snapshot() {
    const documents = Object.fromEntries([...this.state.documents].map(([orgId, docs]) => [orgId, docs.size]));
    return {
      requests: this.stats.snapshot(),
      documents,
      documentWrites: Object.fromEntries(this.state.documentWrites),
      bookings: this.state.bookings.size,
      jobs: {
        total: this.state.jobs.size,
        pending: this.jobs.pending,
        paused: this.jobs.paused,
        // When each job was submitted and completed: the time a client spent waiting on the platform (benchmarks).
        timeline: [...this.state.jobs.values()].map(({ createdAt, completedAt, documentCount }) => ({
          createdAt,
          completedAt,
          documentCount,
        })),
      },
    };
  }

  /** `{"paused": true}` holds every batch job Queued until `{"paused": false}`. */
  @Post('jobs')
  @HttpCode(200)
  controlJobs(@Body() body: { paused?: unknown }) {
    if (typeof body?.paused !== 'boolean') {
      throw PlatformError.badRequest('Invalid job control', ['paused must be true or false']);
    }
    if (body.paused) {
      this.jobs.paused = true;
    } else {
      this.jobs.resume();
    }
    return { paused: this.jobs.paused, pending: this.jobs.pending };
  }
}
