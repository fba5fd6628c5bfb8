import { randomUUID } from 'node:crypto';
import { Injectable, OnModuleDestroy } from '@nestjs/common';
import type { DocumentJob, DocumentJobResultEntry } from '@dockbridge/platform';
import { PlatformError } from '../http/platform-error';
import { Job, Organisation, SandboxState } from '../state/sandbox-state';
import { DocumentsService, ReferenceOptions } from './documents.service';

export const MAX_BATCH_DOCUMENTS = 25_000;
/** Documents processed per turn of the event loop, so a 25,000-document job never blocks other requests for long. */
const SLICE = 500;

/**
 * Asynchronous batch document jobs. Jobs run one at a time in submission order (Queued ->
 * Processing -> Completed); a Queued job can be cancelled. `paused` holds every job Queued (tests, demos).
 */
@Injectable()
export class DocumentJobsService implements OnModuleDestroy {
  private readonly queue: Job[] = [];
  private running = false;
  private timer?: NodeJS.Immediate;
  paused = false;

  constructor(
    private readonly state: SandboxState,
    private readonly documents: DocumentsService,
  ) {}

  submitUpsert(location: Organisation, body: unknown, options: ReferenceOptions): DocumentJob {
    const documents = Array.isArray(body) ? body : (body as { documents?: unknown })?.documents;
    if (!Array.isArray(documents)) {
      throw PlatformError.badRequest('Invalid batch', [
        'body must be a JSON array of documents (or {"documents": [...]})',
      ]);
    }
    if (documents.length === 0) {
      throw PlatformError.badRequest('Invalid batch', ['documents must not be empty']);
    }
    if (documents.length > MAX_BATCH_DOCUMENTS) {
      throw PlatformError.badRequest('Batch too large', [
        `documents: ${documents.length} documents exceed the limit of ${MAX_BATCH_DOCUMENTS} per batch`,
      ]);
    }
    return this.enqueue(location, 'upsert', documents, options);
  }

  submitDelete(location: Organisation, body: unknown): DocumentJob {
    if (!Array.isArray(body)) {
      throw PlatformError.badRequest('Invalid batch', ['body must be a JSON array of document ids']);
    }
    if (body.length === 0) {
      throw PlatformError.badRequest('Invalid batch', ['body: the list of document ids must not be empty']);
    }
    if (body.length > MAX_BATCH_DOCUMENTS) {
      throw PlatformError.badRequest('Batch too large', [
        `body: ${body.length} ids exceed the limit of ${MAX_BATCH_DOCUMENTS} per batch`,
      ]);
    }
    const bad = body.findIndex((id) => typeof id !== 'string' || id === '');
    if (bad >= 0) {
      throw PlatformError.badRequest('Invalid batch', [`body[${bad}] must be a non-empty string document id`]);
    }
    return this.enqueue(location, 'delete', body, {});
  }

  list(location: Organisation): DocumentJob[] {
    return [...this.state.jobs.values()].filter((j) => j.organisationId === location.id).map(record);
  }

  get(location: Organisation, jobId: string): DocumentJob {
    return record(this.find(location, jobId));
  }

  result(location: Organisation, jobId: string): DocumentJobResultEntry[] {
    return this.find(location, jobId).results;
  }

  cancel(location: Organisation, jobId: string): DocumentJob {
    const job = this.find(location, jobId);
    if (job.status !== 'Queued') {
      throw PlatformError.conflict(`job ${jobId} is ${job.status}; only a Queued job can be cancelled`);
    }
    job.status = 'Cancelled';
    job.completedAt = new Date().toISOString();
    this.queue.splice(this.queue.indexOf(job), 1);
    return record(job);
  }

  /** Jobs not yet finished (sandbox stats). */
  get pending(): number {
    return this.queue.length;
  }

  resume(): void {
    this.paused = false;
    this.kick();
  }

  /** Drops queued work (sandbox reset). */
  clear(): void {
    this.queue.length = 0;
  }

  onModuleDestroy(): void {
    if (this.timer) {
      clearImmediate(this.timer);
    }
  }

  private find(location: Organisation, jobId: string): Job {
    const job = this.state.jobs.get(jobId);
    if (!job || job.organisationId !== location.id) {
      throw PlatformError.notFound(`job ${jobId} does not exist at location ${location.id}`);
    }
    return job;
  }

  private enqueue(location: Organisation, kind: Job['kind'], input: unknown[], options: ReferenceOptions): DocumentJob {
    const job: Job = {
      id: randomUUID(),
      createdAt: new Date().toISOString(),
      status: 'Queued',
      completedAt: null,
      documentCount: input.length,
      errors: 0,
      kind,
      organisationId: location.id,
      input,
      options: { enableBaseOrgs: !!options.enableBaseOrgs, selfCoreId: options.selfCoreId },
      results: [],
    };
    this.state.jobs.set(job.id, job);
    this.queue.push(job);
    this.kick();
    return record(job);
  }

  private kick(): void {
    if (this.running || this.paused || this.queue.length === 0) {
      return;
    }
    this.running = true;
    this.timer = setImmediate(() => this.step());
  }

  /** Processes one slice of the job at the head of the queue, then yields to the event loop. */
  private step(): void {
    const job = this.queue[0];
    if (!job || this.paused) {
      this.running = false;
      return;
    }
    job.status = 'Processing';
    const location = this.state.organisations.get(job.organisationId);
    const end = Math.min(job.results.length + SLICE, job.input.length);
    for (let i = job.results.length; i < end; i++) {
      const entry = location
        ? this.process(job, location, job.input[i])
        : failed(null, 'InvalidDocument', 'the location no longer exists');
      if (entry.status === 'Failed') {
        job.errors++;
      }
      job.results.push(entry);
    }
    if (job.results.length >= job.input.length) {
      job.status = 'Completed';
      job.completedAt = new Date().toISOString();
      job.input = [];
      this.queue.shift();
    }
    this.timer = setImmediate(() => this.step());
  }

  private process(job: Job, location: Organisation, item: unknown): DocumentJobResultEntry {
    if (job.kind === 'delete') {
      const id = item as string;
      return this.state.documentsAt(location.id).delete(id)
        ? { id, status: 'Deleted' }
        : failed(id, 'DocumentNotFound', `document ${id} does not exist at location ${location.id}`);
    }
    const id = typeof (item as { id?: unknown })?.id === 'string' ? (item as { id: string }).id : null;
    try {
      return { id, status: this.documents.upsert(location, item, job.options) };
    } catch (error) {
      if (!(error instanceof PlatformError)) {
        throw error;
      }
      return failed(id, 'InvalidDocument', error.message);
    }
  }
}

const failed = (id: string | null, code: string, message: string): DocumentJobResultEntry => ({
  id,
  status: 'Failed',
  error: { code, message },
});

function record(job: Job): DocumentJob {
  const { id, createdAt, status, completedAt, documentCount, errors } = job;
  return { id, createdAt, status, completedAt, documentCount, errors };
}
