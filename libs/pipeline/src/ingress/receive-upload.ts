import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { DomainError, MessageRepository, type MessageMetadata, type NewMessage } from '@dockbridge/audit';
import { PartnerFileInfo, PartnerFileRepository } from '@dockbridge/partners';
import { MessageQueues, translateJobOf } from '../message-queues';
import { PipelineMetrics } from '../pipeline-metrics';
import { UPLOAD_OPTIONS } from '../pipeline.options';
import { X12_CONTENT_TYPE } from '../translate/translators';
import { FinishedUpload, InboundUpload, UploadTextCheck } from './inbound-upload';

export interface UploadOptions {
  /** Uploads received at once by this process; one more is refused until one ends. */
  maxConcurrentUploads: number;
}

/** The process is receiving as many uploads as it may: the client is told to try again shortly. */
export class UploadsBusy extends DomainError {
  readonly kind = 'unavailable';
}

export interface ReceivedUpload {
  file: PartnerFileInfo;
  /** The message the upload became; null for a temporary upload (to be renamed to its final name). */
  messageId: string | null;
}

/**
 * The upload use case (SFTP today): an upload is stored as it arrives (`InboundUpload`, chunks in
 * `partner_file_chunk`), and when it completes its file and its message commit in one transaction:
 * durable before acknowledged, and no file left that nothing processes. The message points at the
 * file (`metadata.payloadFile`) instead of holding a copy of its text. Only when `receive` resolves
 * may the upload be answered OK (the SFTP CLOSE or RENAME); when it throws, nothing was recorded.
 */
@Injectable()
export class ReceiveUpload {
  private readonly logger = new Logger('Upload');
  /** Uploads started and not yet received or discarded. */
  private active = 0;

  constructor(
    private readonly files: PartnerFileRepository,
    private readonly messages: MessageRepository,
    private readonly queues: MessageQueues,
    @Optional() @Inject(UPLOAD_OPTIONS) private readonly options: UploadOptions = { maxConcurrentUploads: 16 },
    @Optional() private readonly metrics?: PipelineMetrics,
  ) {}

  /** A new upload of `name`, stored as its writes arrive; UploadsBusy when this process receives its most already. */
  start(partnerId: string, name: string, maxBytes: number): InboundUpload {
    const limit = this.options.maxConcurrentUploads;
    if (this.active >= limit) {
      this.logger.warn({
        msg: 'upload refused: too many at once',
        partnerId,
        fileName: name,
        active: this.active,
        limit,
      });
      throw new UploadsBusy(
        `the server is receiving ${limit} uploads at once, its limit (sftp.maxConcurrentUploads); try again in a moment`,
      );
    }
    this.active++;
    return new InboundUpload(this.files, partnerId, name, maxBytes, () => this.active--);
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

  /** The upload is complete: its file (and, under a final name, its message) is committed, or it is discarded and this throws. */
  async receive(upload: InboundUpload, temporary = false): Promise<ReceivedUpload> {
    try {
      const stored = await upload.finish();
      const file = await this.files.completeUpload(
        stored,
        temporary ? undefined : (manager, info) => this.messages.recordIn(manager, messageOf(info, stored.encoding)),
      );
      if (file.messageId) {
        await this.recorded(file, stored.encoding);
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
      this.messages.recordIn(manager, messageOf(file, encoding)),
    );
    await this.recorded({ ...file, messageId }, encoding);
    return messageId;
  }

  /** Queues translation (the sweeper queues it if Redis cannot take it now) and says so in the log. */
  private async recorded(file: PartnerFileInfo & { messageId: string | null }, encoding: FinishedUpload['encoding']) {
    this.metrics?.received.inc({ partner: file.partnerId, channel: 'sftp' });
    await this.queues.tryEnqueueTranslate([translateJobOf(file.messageId!)]);
    this.logger.log({
      msg: 'sftp upload recorded',
      partnerId: file.partnerId,
      messageId: file.messageId,
      fileName: file.name,
      size: file.size,
      ...(encoding !== 'utf-8' ? { encoding } : {}),
    });
  }
}

/** The message of an inbound file: its payload is the file (`payloadFile`), not a copy of its text. */
function messageOf(file: PartnerFileInfo, encoding: FinishedUpload['encoding']): NewMessage {
  const metadata: MessageMetadata = {
    fileName: file.name,
    size: file.size,
    sha256: file.sha256,
    via: 'sftp',
    fileId: file.id,
    payloadFile: file.id,
    ...(encoding !== 'utf-8' && { encoding }),
  };
  return {
    partnerId: file.partnerId,
    channel: 'sftp',
    rawPayload: '',
    sha256: file.sha256,
    contentType: X12_CONTENT_TYPE,
    metadata,
  };
}
