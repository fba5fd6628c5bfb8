import { DataSource } from 'typeorm';
import type { DeliveryErrorClass } from './audit.types';

/** One bucket of the dashboard's time series. */
export interface ActivityBucket {
  at: Date;
  received: number;
  delivered: number;
  /** Settled failed, partially failed or rejected. */
  failed: number;
}

export interface PartnerActivity {
  partner: string;
  received: number;
  delivered: number;
  failed: number;
}

export interface MessageActivity {
  series: ActivityBucket[];
  /** Received to delivered, of the messages delivered in the window (null: none were). */
  latencyMs: { p50: number | null; p90: number | null; p99: number | null };
  /** Operations whose latest try in the window failed, by class (retryable ones may still succeed). */
  failuresByClass: Record<DeliveryErrorClass, number>;
  partners: PartnerActivity[];
}

const FAILED = ['failed', 'partially_failed', 'rejected'];

/**
 * Counts over a recent window for the console's dashboard, read through the indexes on received_at
 * and (status, updated_at): the cost follows the window's messages, not the table.
 */
export class MessageStatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async activity(from: Date, to: Date, bucketSeconds: number): Promise<MessageActivity> {
    const bucket = `${bucketSeconds} seconds`;
    const [received, settled, latency, failures, partners] = await Promise.all([
      this.dataSource.query(
        `SELECT date_bin($3::interval, received_at, $1) AS at, count(*)::int AS n
         FROM message WHERE received_at >= $1 AND received_at < $2 GROUP BY 1`,
        [from, to, bucket],
      ) as Promise<{ at: Date; n: number }[]>,
      this.dataSource.query(
        `SELECT date_bin($3::interval, updated_at, $1) AS at, status = 'delivered' AS delivered, count(*)::int AS n
         FROM message WHERE status = ANY($4) AND updated_at >= $1 AND updated_at < $2 GROUP BY 1, 2`,
        [from, to, bucket, ['delivered', ...FAILED]],
      ) as Promise<{ at: Date; delivered: boolean; n: number }[]>,
      this.dataSource.query(
        `SELECT percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP
           (ORDER BY extract(epoch FROM updated_at - received_at) * 1000) AS p
         FROM message WHERE status = 'delivered' AND updated_at >= $1 AND updated_at < $2`,
        [from, to],
      ) as Promise<{ p: number[] | null }[]>,
      this.dataSource.query(
        `SELECT error_class, count(*)::int AS n FROM operation
         WHERE status IN ('failed', 'pending') AND error_class IS NOT NULL AND updated_at >= $1 AND updated_at < $2
         GROUP BY 1`,
        [from, to],
      ) as Promise<{ error_class: DeliveryErrorClass; n: number }[]>,
      this.dataSource.query(
        `SELECT partner_id AS partner, count(*)::int AS received,
           count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
           count(*) FILTER (WHERE status = ANY($3))::int AS failed
         FROM message WHERE received_at >= $1 AND received_at < $2 GROUP BY 1 ORDER BY 2 DESC, 1`,
        [from, to, FAILED],
      ) as Promise<PartnerActivity[]>,
    ]);
    const series = new Map<number, ActivityBucket>();
    for (let at = from.getTime(); at < to.getTime(); at += bucketSeconds * 1000) {
      series.set(at, { at: new Date(at), received: 0, delivered: 0, failed: 0 });
    }
    for (const row of received) {
      series.get(new Date(row.at).getTime())!.received = row.n;
    }
    for (const row of settled) {
      const slot = series.get(new Date(row.at).getTime())!;
      slot[row.delivered ? 'delivered' : 'failed'] += row.n;
    }
    const p = latency[0]?.p ?? null;
    const ms = (value: number | undefined) =>
      value === undefined || value === null ? null : Math.round(Number(value));
    const failuresByClass: Record<DeliveryErrorClass, number> = { retryable: 0, permanent: 0, auth: 0 };
    for (const row of failures) {
      failuresByClass[row.error_class] = row.n;
    }
    return {
      series: [...series.values()],
      latencyMs: { p50: ms(p?.[0]), p90: ms(p?.[1]), p99: ms(p?.[2]) },
      failuresByClass,
      partners,
    };
  }

  /** When each partner last sent anything (null: never), one index probe each: a silent partner is seen. */
  async lastReceived(partnerIds: string[]): Promise<Map<string, Date | null>> {
    const rows: { partner: string; at: Date | null }[] = await this.dataSource.query(
      `SELECT p AS partner, (SELECT max(received_at) FROM message WHERE partner_id = p) AS at FROM unnest($1::text[]) AS p`,
      [partnerIds],
    );
    return new Map(rows.map((row) => [row.partner, row.at]));
  }
}
