import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { MESSAGE_CHANNELS, MESSAGE_STATUSES, MessageChannel, MessageFilter, MessageStatus } from '@dockbridge/audit';
import { unstorableText, validatePlain } from '@dockbridge/platform';
import { BadInput } from '../http-error.filter';

const csv = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;

/** Filter of the message search and of bulk replay. */
export class MessageFilterDto {
  @IsOptional() @Transform(csv) @IsIn(MESSAGE_STATUSES, { each: true }) status?: MessageStatus[];
  @IsOptional() @IsString() @MinLength(1) partner?: string;
  @IsOptional() @Transform(csv) @IsIn(MESSAGE_CHANNELS, { each: true }) channel?: MessageChannel[];
  @IsOptional() @IsISO8601({ strict: true }) from?: string;
  @IsOptional() @IsISO8601({ strict: true }) to?: string;
  @IsOptional() @IsString() @MinLength(1) documentId?: string;
  /** A file's name, exactly: SFTP uploads, HTTP uploads that gave one, export files. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) fileName?: string;
  /** An interchange control number (ISA13); `123` finds `000000123`. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(15) interchange?: string;
}

export class MessageSearchDto extends MessageFilterDto {
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? Number(value) : value))
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
  @IsOptional() @IsUUID('all', { message: 'cursor must be the nextCursor of a previous page' }) cursor?: string;
}

export class ReplayDto {
  @IsOptional() @IsIn(['rerun', 'failed-only']) mode?: 'rerun' | 'failed-only';
  /** Webhook messages: the mapping version to use, the original's (default) or the current one. */
  @IsOptional() @IsIn(['original', 'current']) mapping?: 'original' | 'current';
  /** Edit-and-replay: the corrected payload, as text (EDI) or as JSON (stored as its JSON text). */
  @IsOptional() payload?: unknown;
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
  @IsOptional() @IsString() @MaxLength(100) operator?: string;
  /** Deliver even operations on organisations outside the partner's profile; recorded on the replay with operator and reason. */
  @IsOptional() @IsBoolean() overrideOrganisations?: boolean;
  /** Deliver even over newer writes to the same documents, vehicles or bookings (default: a replay orders as its original, and newer data wins). */
  @IsOptional() @IsBoolean() force?: boolean;
}

export class BulkReplayDto extends MessageFilterDto {
  @IsOptional() @IsIn(['rerun', 'failed-only']) mode?: 'rerun' | 'failed-only';
  /** Webhook messages: the mapping version to use, each message's original (default) or the current one. */
  @IsOptional() @IsIn(['original', 'current']) mapping?: 'original' | 'current';
  /** true (default): only count what would be replayed. */
  @IsOptional() @IsBoolean() dryRun?: boolean;
  /** Deliver even over newer writes to the same targets (see ReplayDto.force). */
  @IsOptional() @IsBoolean() force?: boolean;
  /** Also replay messages whose latest replay was delivered (skipped by default: a second booking.create would book twice). */
  @IsOptional() @IsBoolean() includeReplayed?: boolean;
  @IsOptional() @IsString() @MaxLength(500) reason?: string;
  @IsOptional() @IsString() @MaxLength(100) operator?: string;
}

/** Validates an admin body or query; a problem is a 400 naming the field (text the store cannot hold included). */
export function parse<T extends object>(cls: new () => T, plain: unknown, what: string): T {
  const result = validatePlain(cls, plain ?? {}, '');
  if (!result.ok) {
    throw new BadInput(`Invalid ${what}`, result.problems);
  }
  const unstorable = unstorableText(plain);
  if (unstorable) {
    throw new BadInput(`Invalid ${what}`, [unstorable]);
  }
  return result.value;
}

export function toFilter(dto: MessageFilterDto): MessageFilter {
  return {
    status: dto.status,
    partnerId: dto.partner,
    channel: dto.channel,
    from: dto.from ? new Date(dto.from) : undefined,
    to: dto.to ? new Date(dto.to) : undefined,
    documentId: dto.documentId,
    fileName: dto.fileName,
    interchange: dto.interchange,
  };
}
