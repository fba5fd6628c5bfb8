import { constants } from 'node:buffer';
import { Injectable, Logger } from '@nestjs/common';
import { DomainError, type MessageMetadata } from '@dockbridge/audit';
import { PartnerFileInfo, PartnerFileRepository } from '@dockbridge/partners';
import { X12_CONTENT_TYPE } from '../translate/translators';
import { AcceptMessage } from './accept-message';

export interface DecodedPayload {
  text: string;
  /** `utf-8` when the bytes are valid UTF-8 (a BOM is kept), else `latin1` (every byte one character). */
  encoding: 'utf-8' | 'latin1';
}

/** An upload that cannot be a message, for a reason the partner must be told (the SFTP status says it). */
export class UploadRefused extends DomainError {
  readonly kind = 'invalid';
}

const { MAX_STRING_LENGTH } = constants;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The upload as text for the message row. EDI is ASCII/UTF-8; anything else is kept as latin1,
 * never dropped. A NUL byte is refused outright (X12 is text, Postgres text cannot hold it, and a
 * file of NULs is what a write far past the end leaves): found with one byte search, never a string
 * operation over a partner-sized payload.
 */
export function decodePayload(content: Buffer): DecodedPayload {
  // Checked first: decoding more bytes than V8's longest string would throw (or worse) half-way.
  if (content.length > MAX_STRING_LENGTH) {
    throw new UploadRefused(
      `the file has ${content.length} bytes, more than the ${MAX_STRING_LENGTH} one message's text can hold; nothing was recorded`,
    );
  }
  const nul = content.indexOf(0);
  if (nul !== -1) {
    throw new UploadRefused(
      `the file holds a NUL byte at offset ${nul}: X12 is text, so binary content (or a hole left by a write past the end) is not accepted; nothing was recorded`,
    );
  }
  try {
    return { text: strictUtf8.decode(content), encoding: 'utf-8' };
  } catch {
    return { text: content.toString('latin1'), encoding: 'latin1' };
  }
}

export interface ReceivedUpload {
  file: PartnerFileInfo;
  /** The message the upload became; null for a temporary upload (to be renamed to its final name). */
  messageId: string | null;
}

/**
 * The upload use case: turns completed uploads (SFTP today) into messages, durable before
 * acknowledged: the file is stored in `partner_file`, then `AcceptMessage` commits the message row,
 * then the file is linked to it. Only when this resolves may the upload be answered OK (the SFTP
 * CLOSE or RENAME); when it throws, the client must be told it failed (the stored file is taken back
 * out, so a retry starts clean).
 */
@Injectable()
export class ReceiveUpload {
  private readonly logger = new Logger('Upload');

  constructor(
    private readonly files: PartnerFileRepository,
    private readonly accept: AcceptMessage,
  ) {}

  /** An upload finished: stores the file; one under its final name (not `temporary`) also becomes a message. */
  async receive(partnerId: string, name: string, content: Buffer, temporary = false): Promise<ReceivedUpload> {
    const file = await this.files.put(partnerId, 'inbound', name, content);
    if (temporary) {
      return { file, messageId: null };
    }
    try {
      const messageId = await this.complete(partnerId, file, content);
      return { file: { ...file, messageId }, messageId };
    } catch (error) {
      await this.files.removeById(partnerId, file.id).catch(() => undefined);
      throw error;
    }
  }

  /** Records the message for a stored inbound file (an upload closed, or a temporary upload renamed to a final name). */
  async complete(partnerId: string, file: PartnerFileInfo, content?: Buffer): Promise<string> {
    const bytes = content ?? (await this.files.read(partnerId, 'inbound', file.name))?.content;
    if (!bytes) {
      throw new Error(`inbound/${file.name} disappeared before it was recorded`);
    }
    const payload = decodePayload(bytes);
    const metadata: MessageMetadata = {
      fileName: file.name,
      size: bytes.length,
      sha256: file.sha256,
      via: 'sftp',
      fileId: file.id,
    };
    if (payload.encoding !== 'utf-8') {
      metadata.encoding = payload.encoding;
    }
    const accepted = await this.accept.execute({
      partnerId,
      channel: 'sftp',
      rawPayload: payload.text,
      contentType: X12_CONTENT_TYPE,
      metadata,
    });
    await this.files.linkMessage(partnerId, file.id, accepted.messageId);
    this.logger.log({
      msg: 'sftp upload recorded',
      partnerId,
      messageId: accepted.messageId,
      fileName: file.name,
      size: bytes.length,
      ...(payload.encoding !== 'utf-8' ? { encoding: payload.encoding } : {}),
    });
    return accepted.messageId;
  }
}
