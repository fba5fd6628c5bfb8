import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
import { inheritedName, unstorableText, validatePlain } from '@dockbridge/platform';
import { BadInput } from '../http-error.filter';

/** Fields of admin DTOs that hold any JSON (a sample webhook body, a corrected payload), by class. */
const FREE_FORM = new WeakMap<object, string[]>();

/**
 * A field that holds any JSON as sent: parse() validates the DTO around it and hands it over
 * untouched (class-transformer drops keys named like what every object inherits, `toString`).
 */
export function FreeFormJson(): PropertyDecorator {
  return (target, property) => {
    FREE_FORM.set(target.constructor, [...(FREE_FORM.get(target.constructor) ?? []), String(property)]);
  };
}

/** `operator` of a change an operator makes (a replay, an end): the name it is recorded under. */
const OperatorName = () =>
  applyDecorators(
    ApiPropertyOptional({
      maxLength: 100,
      description:
        'With the shared ADMIN_TOKEN only: who, recorded as operator:<name> (default admin). A named token records its own name',
    }),
    IsOptional(),
    IsString(),
    MaxLength(100),
  );

const csv = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : value;

/** Filter of the message search and of bulk replay. */
export class MessageFilterDto {
  @ApiPropertyOptional({
    enum: MESSAGE_STATUSES,
    isArray: true,
    description: 'Any of these statuses (repeated, or one comma list)',
    example: ['failed'],
  })
  @IsOptional()
  @Transform(csv)
  @IsIn(MESSAGE_STATUSES, { each: true })
  status?: MessageStatus[];
  @ApiPropertyOptional({ description: "The partner's id", example: 'acme-wms' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  partner?: string;
  @ApiPropertyOptional({
    enum: MESSAGE_CHANNELS,
    isArray: true,
    description: 'Any of these channels (repeated, or one comma list)',
  })
  @IsOptional()
  @Transform(csv)
  @IsIn(MESSAGE_CHANNELS, { each: true })
  channel?: MessageChannel[];
  @ApiPropertyOptional({ format: 'date-time', description: 'Received at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  from?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Received before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  to?: string;
  @ApiPropertyOptional({ description: 'A document id one of its operations writes', example: 'PO-1' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  documentId?: string;
  /** A file's name, exactly: SFTP uploads, HTTP uploads that gave one, export files. */
  @ApiPropertyOptional({
    maxLength: 255,
    description: 'The file it came in or went out as, exactly (SFTP and HTTP uploads, export files)',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(255)
  fileName?: string;
  /** An interchange control number (ISA13); `123` finds `000000123`. */
  @ApiPropertyOptional({
    maxLength: 15,
    description: 'An interchange control number (ISA13); `123` finds `000000123`',
    example: '000000123',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(15)
  interchange?: string;
  @ApiPropertyOptional({
    maxLength: 200,
    description: "Words in the message's reason (why it failed or was rejected), case-insensitive",
    example: 'DocumentNotFound',
  })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  text?: string;
}

export class MessageSearchDto extends MessageFilterDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 500, description: 'Page size' })
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? Number(value) : value))
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;
  @ApiPropertyOptional({ description: 'The nextCursor of the previous page' })
  @IsOptional()
  @IsUUID('all', { message: 'cursor must be the nextCursor of a previous page' })
  cursor?: string;
}

export class EndMessageDto {
  @ApiProperty({
    maxLength: 500,
    description:
      "Why: recorded as each ended operation's error (ended by operator:<name>: <reason>) and in the activity log",
  })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reason!: string;
  @OperatorName()
  operator?: string;
}

export class ReplayDto {
  @ApiPropertyOptional({
    enum: ['rerun', 'failed-only'],
    default: 'rerun',
    description: 'rerun: every operation from the raw payload; failed-only: only the operations that failed',
  })
  @IsOptional()
  @IsIn(['rerun', 'failed-only'])
  mode?: 'rerun' | 'failed-only';
  /** Webhook messages: the mapping version to use, the original's (default) or the current one. */
  @ApiPropertyOptional({
    enum: ['original', 'current'],
    default: 'original',
    description: "Webhook messages: the mapping version to translate with, the original's or the current one",
  })
  @IsOptional()
  @IsIn(['original', 'current'])
  mapping?: 'original' | 'current';
  /** Edit-and-replay: the corrected payload, as text (EDI) or as JSON (stored as its JSON text). */
  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }],
    description: 'Edit-and-replay: the corrected payload, as text (EDI) or as JSON (stored as its JSON text)',
  })
  @IsOptional()
  @FreeFormJson()
  payload?: unknown;
  @ApiPropertyOptional({ maxLength: 500, description: 'Why, recorded on the replay' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
  @OperatorName()
  operator?: string;
  /** Deliver even operations on organisations outside the partner's profile; recorded on the replay with operator and reason. */
  @ApiPropertyOptional({
    description:
      "Deliver even operations on organisations outside the partner's profile (recorded with operator and reason)",
  })
  @IsOptional()
  @IsBoolean()
  overrideOrganisations?: boolean;
  /** Deliver even over newer writes to the same documents, vehicles or bookings (default: a replay orders as its original, and newer data wins). */
  @ApiPropertyOptional({
    default: false,
    description: 'Deliver even over newer writes to the same targets (default: a replay orders as its original)',
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
}

export class BulkReplayDto extends MessageFilterDto {
  @ApiPropertyOptional({ enum: ['rerun', 'failed-only'], default: 'rerun', description: 'As for one replay' })
  @IsOptional()
  @IsIn(['rerun', 'failed-only'])
  mode?: 'rerun' | 'failed-only';
  /** Webhook messages: the mapping version to use, each message's original (default) or the current one. */
  @ApiPropertyOptional({
    enum: ['original', 'current'],
    default: 'original',
    description: "Webhook messages: each message's original mapping version, or the current one",
  })
  @IsOptional()
  @IsIn(['original', 'current'])
  mapping?: 'original' | 'current';
  /** true (default): only count what would be replayed. */
  @ApiPropertyOptional({ default: true, description: 'true (default): only count what would be replayed (200)' })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;
  /** Deliver even over newer writes to the same targets (see ReplayDto.force). */
  @ApiPropertyOptional({ default: false, description: 'Deliver even over newer writes to the same targets' })
  @IsOptional()
  @IsBoolean()
  force?: boolean;
  /** Also replay messages whose latest replay was delivered (skipped by default: a second booking.create would book twice). */
  @ApiPropertyOptional({
    default: false,
    description: 'Also replay messages whose latest replay was delivered (a second booking.create books twice)',
  })
  @IsOptional()
  @IsBoolean()
  includeReplayed?: boolean;
  @ApiPropertyOptional({ maxLength: 500, description: 'Why, recorded on the run and its replays' })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  reason?: string;
  @OperatorName()
  operator?: string;
}

/**
 * Validates an admin body or query; a problem is a 400 naming the field (text the store cannot hold
 * included, and a field named like what every object inherits: the whitelist takes `valueOf` for a
 * declared field, and class-transformer drops it without a word).
 */
export function parse<T extends object>(cls: new () => T, plain: unknown, what: string): T {
  const freeForm = FREE_FORM.get(cls) ?? [];
  const isObject = typeof plain === 'object' && plain !== null;
  const sent = (isObject ? plain : {}) as Record<string, unknown>;
  // Free-form values are checked only for being there; what they hold is theirs.
  const declared: Record<string, unknown> = { ...sent };
  for (const field of freeForm) {
    if (Object.hasOwn(sent, field) && typeof sent[field] === 'object' && sent[field] !== null) {
      declared[field] = Array.isArray(sent[field]) ? [] : {};
    }
  }
  const inherited = inheritedName(declared);
  if (inherited !== undefined) {
    throw new BadInput(`Invalid ${what}`, [`${inherited}: unknown field`]);
  }
  const result = validatePlain(cls, isObject ? declared : (plain ?? {}), '');
  if (!result.ok) {
    throw new BadInput(`Invalid ${what}`, result.problems);
  }
  const unstorable = unstorableText(plain);
  if (unstorable) {
    throw new BadInput(`Invalid ${what}`, [unstorable]);
  }
  for (const field of freeForm) {
    if (Object.hasOwn(sent, field)) {
      (result.value as Record<string, unknown>)[field] = sent[field];
    }
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
    text: dto.text,
  };
}
