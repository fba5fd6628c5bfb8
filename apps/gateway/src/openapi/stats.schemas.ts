import { ApiProperty } from '@nestjs/swagger';
import type { AsJson, DashboardStatsView, QueueState } from '@dockbridge/pipeline';

/* The dashboard's figures (DashboardStatsView). Each implements the type it documents. */

type Stats = AsJson<DashboardStatsView>;
type Bucket = Stats['series'][number];
type Partner = Stats['partners'][number];
const NULLABLE_MS = { type: 'integer', nullable: true } as const;

export class ActivityBucketSchema implements Bucket {
  @ApiProperty({ format: 'date-time', description: 'Start of the bucket' }) at!: string;
  @ApiProperty({ type: 'integer', description: 'Messages received' }) received!: number;
  @ApiProperty({ type: 'integer', description: 'Messages that settled delivered' }) delivered!: number;
  @ApiProperty({ type: 'integer', description: 'Messages that settled failed, partially failed or rejected' })
  failed!: number;
}

export class LatencySchema {
  @ApiProperty(NULLABLE_MS) p50!: number | null;
  @ApiProperty(NULLABLE_MS) p90!: number | null;
  @ApiProperty(NULLABLE_MS) p99!: number | null;
}

export class FailuresByClassSchema {
  @ApiProperty({ type: 'integer', description: 'Retried (may still succeed)' }) retryable!: number;
  @ApiProperty({ type: 'integer', description: 'Ended at once (the platform refused the data)' }) permanent!: number;
  @ApiProperty({ type: 'integer', description: 'Refused credentials: a token or permission needs fixing' })
  auth!: number;
}

export class QueueStateSchema implements AsJson<QueueState> {
  @ApiProperty({ example: 'deliver' }) name!: string;
  @ApiProperty({ type: 'integer' }) waiting!: number;
  @ApiProperty({ type: 'integer' }) active!: number;
  @ApiProperty({ type: 'integer', description: 'Waiting for a retry backoff' }) delayed!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Age of the oldest waiting job (null: none waits)' })
  oldestWaitingSeconds!: number | null;
}

export class PartnerActivitySchema implements Partner {
  @ApiProperty({ example: 'acme-wms' }) partner!: string;
  @ApiProperty({ type: 'integer' }) received!: number;
  @ApiProperty({ type: 'integer' }) delivered!: number;
  @ApiProperty({ type: 'integer' }) failed!: number;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it last sent anything (any time)',
  })
  lastReceivedAt!: string | null;
}

export class DashboardStatsSchema implements Stats {
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({ type: 'integer', description: 'Width of each bucket (60 up to 6 hours)' }) bucketSeconds!: number;
  @ApiProperty({ type: [ActivityBucketSchema] }) series!: ActivityBucketSchema[];
  @ApiProperty({ type: LatencySchema, description: 'Received to delivered, of the messages delivered in the window' })
  latencyMs!: LatencySchema;
  @ApiProperty({ type: FailuresByClassSchema, description: 'Operations whose latest try in the window failed' })
  failuresByClass!: FailuresByClassSchema;
  @ApiProperty({ type: [QueueStateSchema], nullable: true, description: 'null: Redis could not be read' })
  queues!: QueueStateSchema[] | null;
  @ApiProperty({ type: [PartnerActivitySchema] }) partners!: PartnerActivitySchema[];
}
