import { MessageRepository, MessageSummary, ReplayRunRepository, StuckQuery } from '@dockbridge/audit';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { MessageQueues, translateJobOf } from '../message-queues';
import { SWEEP_OPTIONS } from '../pipeline.options';
import { QUEUES, replayRunJobId, translateJobId } from '../queues';
import { TranslateMessage } from '../translate/translate-message';

/** Longer than any export run takes to deliver its file (its POST gives up after 30 s). */
const EXPORT_DELIVERY_MS = 5 * 60_000;
/** Messages read per page; a sweep pages on until none is left or its time is up. */
const PAGE = 500;
/** How long one sweep may go on: a big backlog is recovered in one sweep, and the next one is not held up for ever. */
const SWEEP_BUDGET_MS = 20_000;
/**
 * Times a message's translation is queued again after its job was lost before it is ended `failed`:
 * a message that stops its worker every time (its job then fails by stalling, never reaching the
 * last-try hook) would be queued for ever, and it holds its partner's later writes (the gate).
 */
export const MAX_TRANSLATION_REQUEUES = 5;

export interface SweepOptions {
  /** Messages whose status has not moved for this long are looked at. */
  staleMs: number;
  /** Messages read per page (default 500). */
  limit?: number;
}

export interface SweepReport {
  translations: number;
  deliveries: number;
  /** Export files whose run stopped before delivering them, marked failed. */
  exports: number;
  /** Messages found `delivering` with nothing left to deliver, settled. */
  settled: number;
  /** Bulk replay runs not ended whose job was lost (Redis restarted empty, a job failed by stalling), queued again. */
  replayRuns: number;
  /** Given-up translations whose cleanup was cut short, finished. */
  abandoned: number;
}

/**
 * Nothing accepted is lost: messages recorded while Redis was down (or whose jobs a Redis restart
 * lost) are queued again. Received/translating messages without a live translate job (their own,
 * or their ingress commit's) get one; delivering messages get their unsettled operations re-queued
 * under the same job ids (read a page of operations at a time), or are settled when nothing is left.
 * Set-based for received messages: a page costs one pipelined Redis round trip for their jobs'
 * states and one bulk enqueue, so a backlog of thousands is recovered in seconds.
 */
@Injectable()
export class SweepStuck {
  constructor(
    private readonly messages: MessageRepository,
    private readonly queues: MessageQueues,
    private readonly translate: TranslateMessage,
    @Inject(SWEEP_OPTIONS) private readonly options: SweepOptions,
    @Optional() private readonly runs?: ReplayRunRepository,
  ) {}

  /** `staleMs` overrides the configured staleness (a sweep right after Redis returned looks at everything). */
  async execute(now = new Date(), staleMs = this.options.staleMs): Promise<SweepReport> {
    const olderThan = new Date(now.getTime() - staleMs);
    const deadline = Date.now() + SWEEP_BUDGET_MS;
    const report: SweepReport = { translations: 0, deliveries: 0, exports: 0, settled: 0, replayRuns: 0, abandoned: 0 };

    // Exports are dockbridge's own files, driven by their export job, never translated.
    await this.pages(
      { olderThan, statuses: ['received', 'translating'], channel: { except: 'export' } },
      deadline,
      async (page) => {
        report.translations += await this.requeueTranslations(page);
      },
    );
    // An export file still `received` this long after it was written: its run stopped before delivering it.
    // Marked failed so it shows; a retry of that run delivers it all the same.
    const exportsOlderThan = new Date(now.getTime() - Math.max(staleMs, EXPORT_DELIVERY_MS));
    await this.pages(
      { olderThan: exportsOlderThan, statuses: ['received'], channel: { only: 'export' } },
      deadline,
      async (page) => {
        for (const message of page) {
          await this.messages.transition(
            message.id,
            'failed',
            'sweeper',
            'the export run stopped before delivering this file (its worker stopped); a retry of the run delivers it',
          );
          report.exports++;
        }
      },
    );
    await this.pages({ olderThan, statuses: ['delivering'] }, deadline, async (page) => {
      for (const message of page) {
        const queued = await this.translate.enqueueStored(message, undefined, true);
        if (queued === 0) {
          await this.messages.settleMessage(message.id, 'sweeper');
          report.settled++;
          continue;
        }
        report.deliveries += queued;
      }
    });
    await this.pages({ olderThan, statuses: ['failed'], marked: 'abandoning' }, deadline, async (page) => {
      for (const message of page) {
        await this.translate.cleanUpAbandoned(
          message,
          'sweeper',
          message.statusReason ?? 'its translation was given up',
        );
        report.abandoned++;
      }
    });
    report.replayRuns = await this.requeueReplayRuns(olderThan);
    return report;
  }

  /** A run resumes from its row (its progress and the replays it made), so queuing it again is always safe. */
  private async requeueReplayRuns(olderThan: Date): Promise<number> {
    const ids = (await this.runs?.findUnattended(olderThan)) ?? [];
    if (ids.length === 0) {
      return 0;
    }
    const jobIds = ids.map(replayRunJobId);
    const { live, finished } = await this.queues.jobStates(QUEUES.replay, jobIds);
    const lost = ids.filter((id) => !live.has(replayRunJobId(id)));
    await this.queues.removeFinishedMany(
      QUEUES.replay,
      lost.map(replayRunJobId).filter((id) => finished.has(id)),
    );
    await this.queues.enqueueReplayRuns(lost);
    return lost.length;
  }

  /** Pages through the stuck messages, oldest first, until none is left or the deadline passes. */
  private async pages(
    query: Omit<StuckQuery, 'limit' | 'after'>,
    deadline: number,
    handle: (page: MessageSummary[]) => Promise<void>,
  ): Promise<void> {
    const limit = this.options.limit ?? PAGE;
    let after: StuckQuery['after'];
    do {
      const page = await this.messages.findStuck({ ...query, limit, after });
      if (page.length === 0) {
        return;
      }
      await handle(page);
      if (page.length < limit) {
        return;
      }
      after = page[page.length - 1].id;
    } while (Date.now() < deadline);
  }

  /** Queues translation of the messages whose commit's job and own job are both gone; returns how many. */
  private async requeueTranslations(page: MessageSummary[]): Promise<number> {
    const ingressJobs = page.map((m) => m.metadata.ingressJob).filter((id): id is string => typeof id === 'string');
    const ownJobs = page.map((m) => translateJobId(m.id));
    // Still waiting in the job of the commit that recorded it, or in its own (a backlog, not a loss)?
    const { live, finished } = await this.queues.jobStates(QUEUES.translate, [...ingressJobs, ...ownJobs]);
    const lost = page.filter(
      (m) =>
        !(typeof m.metadata.ingressJob === 'string' && live.has(m.metadata.ingressJob)) &&
        !live.has(translateJobId(m.id)),
    );
    await this.queues.removeFinishedMany(
      QUEUES.translate,
      lost.map((m) => translateJobId(m.id)).filter((id) => finished.has(id)),
    );
    const requeuesOf = (m: MessageSummary) => m.metadata.translationRequeues ?? 0;
    const again = lost.filter((m) => requeuesOf(m) < MAX_TRANSLATION_REQUEUES);
    for (const m of lost.filter((one) => requeuesOf(one) >= MAX_TRANSLATION_REQUEUES)) {
      await this.translate.abandon(
        m.id,
        'sweeper',
        `translation never finished: its job was lost ${requeuesOf(m) + 1} times (its worker stopped during it, or Redis lost it); replay it once the cause is found`,
      );
    }
    await this.messages.countTranslationRequeues(again.map((m) => m.id));
    await this.queues.enqueueTranslate(again.map((m) => translateJobOf(m.id)));
    return again.length;
  }
}
