import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  DomainError,
  MessageRepository,
  type MessageChannel,
  type MessageMetadata,
  type NewMessage,
} from '@dockbridge/audit';
import { PartnerFileInfo, PartnerFileRepository } from '@dockbridge/partners';
import { MessageQueues, translateJobOf } from '../message-queues';
import { PipelineMetrics } from '../pipeline-metrics';
import { UPLOAD_OPTIONS } from '../pipeline.options';
import { X12_CONTENT_TYPE } from '../translate/translators';
import {
  FinishedUpload,
  InboundUpload,
  MAX_HELD_BYTES,
  UploadMemory,
  UploadTextCheck,
  UploadTooLarge,
} from './inbound-upload';

export interface UploadOptions {
  /** Uploads received at once by this process; one more is refused until one ends. */
  maxConcurrentUploads: number;
  /** Of those, uploads of one partner: no partner holds every slot. */
  maxUploadsPerPartner: number;
  /** Bytes this process's uploads may hold not yet stored, past which a new upload is refused until they drain. */
  maxHeldBytes: number;
}

const DEFAULT_UPLOAD_OPTIONS: UploadOptions = {
  maxConcurrentUploads: 16,
  maxUploadsPerPartner: 4,
  maxHeldBytes: 64 * 1024 * 1024,
};

/** The process is receiving as many uploads as it may: the client is told to try again shortly. */
export class UploadsBusy extends DomainError {
  readonly kind = 'unavailable';
}

/** A streamed body over the upload size limit: refused as it crossed it (or at once, for a declared length over it), nothing kept. */
export class UploadBodyTooLarge extends DomainError {
  readonly kind = 'too-large';
}
/** A streamed body of nothing (or only whitespace): nothing kept. */
export class EmptyUpload extends DomainError {
  readonly kind = 'invalid';
  override summary = 'Invalid EDI upload';
}
/** The sender went away before its body ended: nothing kept, and nobody left to answer. */
export class UploadCutOff extends DomainError {
  readonly kind = 'invalid';
}

export interface ReceivedUpload {
  file: PartnerFileInfo;
  /** The message the upload became; null for a temporary upload (to be renamed to its final name). */
  messageId: string | null;
}

/** Where an upload came from, as its message records it. */
export interface UploadSource {
  channel: Extract<MessageChannel, 'sftp' | 'http-edi'>;
  /** The file's name is the partner's (recorded as `metadata.fileName`, searchable); else the gateway made it up. */
  named: boolean;
  platformAccount?: string | null;
}
const SFTP: UploadSource = { channel: 'sftp', named: true };

/** A body sent as one stream (`POST /v1/edi`). */
export interface StreamedUpload {
  partnerId: string;
  platformAccount?: string | null;
  /** The partner's name for the file; without one it is stored as `http-<file id>.x12`. */
  fileName?: string;
  /** The upload size limit (sftp.maxFileBytes). */
  maxBytes: number;
  /** The length the sender declared, when it did: one over the limit is refused before a byte is read. */
  declaredBytes?: number;
}

/**
 * The upload use case (SFTP, and `POST /v1/edi` as a stream): an upload is stored as it arrives (`InboundUpload`, chunks in
 * `partner_file_chunk`), and when it completes its file and its message commit in one transaction:
 * durable before acknowledged, and no file left that nothing processes. The message points at the
 * file (`metadata.payloadFile`) instead of holding a copy of its text. Only when `receive` resolves
 * may the upload be answered OK (the SFTP CLOSE or RENAME); when it throws, nothing was recorded.
 */
@Injectable()
export class ReceiveUpload {
  private readonly logger = new Logger('Upload');
  /** Uploads started and not yet received or discarded, in all and by partner. */
  private active = 0;
  private readonly activeByPartner = new Map<string, number>();
  private readonly memory = new UploadMemory();

  constructor(
    private readonly files: PartnerFileRepository,
    private readonly messages: MessageRepository,
    private readonly queues: MessageQueues,
    @Optional() @Inject(UPLOAD_OPTIONS) private readonly options: UploadOptions = DEFAULT_UPLOAD_OPTIONS,
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {}

  /**
   * A new upload of `name`, stored as its writes arrive; UploadsBusy when this process receives its
   * most already, in all or from this partner, or its uploads hold their most not yet stored.
   */
  start(partnerId: string, name: string, maxBytes: number, fileId?: string): InboundUpload {
    const { maxConcurrentUploads, maxUploadsPerPartner, maxHeldBytes } = this.options;
    const partnerActive = this.activeByPartner.get(partnerId) ?? 0;
    // A partner holding nothing yet may start one upload past the limit by what one partner's uploads
    // may hold at most (maxUploadsPerPartner x MAX_HELD_BYTES): one partner cannot shut the others out.
    const heldLimit =
      this.memory.heldBy(partnerId) > 0 ? maxHeldBytes : maxHeldBytes + maxUploadsPerPartner * MAX_HELD_BYTES;
    const busy =
      this.active >= maxConcurrentUploads
        ? `the server is receiving ${maxConcurrentUploads} uploads at once, its limit (sftp.maxConcurrentUploads)`
        : partnerActive >= maxUploadsPerPartner
          ? `the server is receiving ${maxUploadsPerPartner} uploads of yours at once, a partner's limit (sftp.maxUploadsPerPartner)`
          : this.memory.held >= heldLimit
            ? `the server's uploads hold ${this.memory.held} bytes not yet stored, past its limit (sftp.maxHeldBytes ${maxHeldBytes}${heldLimit > maxHeldBytes ? `, ${heldLimit} for a partner holding none` : ''})`
            : undefined;
    if (busy) {
      this.logger.warn({
        msg: 'upload refused: too many at once',
        partnerId,
        fileName: name,
        active: this.active,
        partnerActive,
        heldBytes: this.memory.held,
        reason: busy,
      });
      throw new UploadsBusy(`${busy}; try again in a moment`);
    }
    this.active++;
    this.activeByPartner.set(partnerId, partnerActive + 1);
    const ended = () => {
      this.active--;
      const left = this.activeByPartner.get(partnerId)! - 1;
      if (left) {
        this.activeByPartner.set(partnerId, left);
      } else {
        this.activeByPartner.delete(partnerId);
      }
    };
    return new InboundUpload(this.files, partnerId, name, maxBytes, ended, fileId, this.memory);
  }

  /** An upload that carries on from a stored file that has not become a message (a resumed or appended upload). */
  async resume(file: PartnerFileInfo, maxBytes: number): Promise<InboundUpload> {
    const upload = this.start(file.partnerId, file.name, maxBytes);
    try {
      let offset = 0;
      for await (const slice of this.files.slicesOf(file.partnerId, file.id)) {
        await upload.write(offset, slice);
        offset += slice.length;
      }
      return upload;
    } catch (error) {
      await upload.discard().catch(() => undefined);
      throw error;
    }
  }

  /**
   * A body sent as one stream, taken as an SFTP client's writes are: its bytes go to the upload in
   * order as they arrive (the next read waits for the store, so memory stays a chunk or two whatever
   * the size), and when it ends its file and message commit together. Throws, keeping nothing:
   * UploadBodyTooLarge as soon as it passes `maxBytes`, EmptyUpload, UploadRefused (a NUL byte),
   * UploadCutOff when the stream fails (the sender went away), UploadsBusy, or the store's error.
   */
  async receiveStream(
    body: AsyncIterable<Buffer>,
    from: StreamedUpload,
  ): Promise<ReceivedUpload & { messageId: string }> {
    if (from.declaredBytes !== undefined && from.declaredBytes > from.maxBytes) {
      throw this.tooLarge(from, from.declaredBytes, false);
    }
    const fileId = randomUUID();
    const upload = this.start(from.partnerId, from.fileName ?? `http-${fileId}.x12`, from.maxBytes, fileId);
    try {
      // Not `for await`: leaving it early destroys the request, and the socket its 413 goes out on with it.
      const chunks = body[Symbol.asyncIterator]();
      let blank = true;
      let offset = 0;
      for (;;) {
        const next = await chunks.next().catch((error: Error) => {
          throw new UploadCutOff(`the body ended early (${error.message}); nothing was recorded`);
        });
        if (next.done) {
          break;
        }
        blank &&= isBlank(next.value);
        await upload.write(offset, next.value);
        offset += next.value.length;
      }
      if (blank) {
        throw new EmptyUpload(
          'body: send the X12 interchange as the request body (content-type application/edi-x12); it was empty',
        );
      }
    } catch (error) {
      await upload.discard().catch(() => undefined);
      if (error instanceof UploadTooLarge) {
        throw this.tooLarge(from, error.atLeastBytes, true);
      }
      if (error instanceof UploadCutOff) {
        this.logger.warn({ msg: 'upload cut off before its end; not recorded', partnerId: from.partnerId });
      }
      throw error;
    }
    const received = await this.receive(upload, false, {
      channel: 'http-edi',
      named: from.fileName !== undefined,
      platformAccount: from.platformAccount,
    });
    return { file: received.file, messageId: received.messageId! };
  }

  /** The upload is complete: its file (and, under a final name, its message) is committed, or it is discarded and this throws. */
  async receive(upload: InboundUpload, temporary = false, source = SFTP): Promise<ReceivedUpload> {
    try {
      const stored = await upload.finish();
      const file = await this.files.completeUpload(
        stored,
        temporary
          ? undefined
          : (manager, info) => this.messages.recordIn(manager, messageOf(info, stored.encoding, source)),
      );
      if (file.messageId) {
        await this.recorded(file, stored.encoding, source);
      }
      return { file, messageId: file.messageId };
    } catch (error) {
      await upload.discard().catch(() => undefined);
      throw error;
    }
  }

  /** Records the message of a stored inbound file (a temporary upload renamed to its final name). */
  async complete(file: PartnerFileInfo): Promise<string> {
    const text = new UploadTextCheck();
    for await (const slice of this.files.slicesOf(file.partnerId, file.id)) {
      text.update(slice);
    }
    const encoding = text.finish();
    const messageId = await this.files.becomeMessage(file, (manager) =>
      this.messages.recordIn(manager, messageOf(file, encoding, SFTP)),
    );
    await this.recorded({ ...file, messageId }, encoding, SFTP);
    return messageId;
  }

  /** A body over the limit, logged so operators can tell the partner why (nothing reaches the audit store). */
  private tooLarge(from: StreamedUpload, atLeast: number, read: boolean): UploadBodyTooLarge {
    this.logger.warn({
      msg: 'upload refused: larger than sftp.maxFileBytes; not recorded',
      partnerId: from.partnerId,
      fileName: from.fileName,
      atLeastBytes: atLeast,
      maxFileBytes: from.maxBytes,
    });
    const size = read ? `reached ${atLeast} bytes` : `declares ${atLeast} bytes`;
    return new UploadBodyTooLarge(
      `body: the upload ${size}, over the limit of ${from.maxBytes} bytes (sftp.maxFileBytes); nothing was recorded`,
    );
  }

  /** Queues translation (the sweeper queues it if Redis cannot take it now) and says so in the log. */
  private async recorded(
    file: PartnerFileInfo & { messageId: string | null },
    encoding: FinishedUpload['encoding'],
    source: UploadSource,
  ) {
    this.metrics?.received.inc({ partner: file.partnerId, channel: source.channel });
    await this.queues.tryEnqueueTranslate([translateJobOf(file.messageId!)]);
    this.logger.log({
      msg: `${source.channel} upload recorded`,
      partnerId: file.partnerId,
      messageId: file.messageId,
      fileName: file.name,
      size: file.size,
      ...(encoding !== 'utf-8' ? { encoding } : {}),
    });
  }
}

/** Whether a chunk holds only whitespace (found at its first other byte). */
function isBlank(chunk: Buffer): boolean {
  for (const byte of chunk) {
    if (byte !== 0x20 && (byte < 0x09 || byte > 0x0d)) {
      return false;
    }
  }
  return true;
}

/** The message of an inbound file: its payload is the file (`payloadFile`), not a copy of its text. */
function messageOf(file: PartnerFileInfo, encoding: FinishedUpload['encoding'], source: UploadSource): NewMessage {
  const metadata: MessageMetadata = {
    ...(source.named && { fileName: file.name }),
    size: file.size,
    sha256: file.sha256,
    via: source.channel === 'sftp' ? 'sftp' : 'http',
    fileId: file.id,
    payloadFile: file.id,
    ...(encoding !== 'utf-8' && { encoding }),
    ...(source.platformAccount !== undefined && { platformAccount: source.platformAccount }),
  };
  return {
    partnerId: file.partnerId,
    channel: source.channel,
    rawPayload: '',
    sha256: file.sha256,
    contentType: X12_CONTENT_TYPE,
    metadata,
  };
}
