import { TextDecoder } from 'node:util';
import { Injectable } from '@nestjs/common';
import type { Message } from '@dockbridge/audit';
import { PartnerFileRepository } from '@dockbridge/partners';

type WithPayload = Pick<Message, 'partnerId' | 'rawPayload' | 'metadata'>;

/**
 * A message's payload, wherever it is kept: its text column, or the stored file an upload became
 * (`metadata.payloadFile`), read a slice at a time and decoded as it was received.
 */
@Injectable()
export class MessagePayloads {
  constructor(private readonly files: PartnerFileRepository) {}

  /** The message with its payload text in `rawPayload`. */
  async withText<M extends WithPayload>(message: M): Promise<M> {
    const fileId = message.metadata?.payloadFile;
    if (!fileId) {
      return message;
    }
    const decoder = new TextDecoder(message.metadata.encoding === 'latin1' ? 'latin1' : 'utf-8', { ignoreBOM: true });
    const parts: string[] = [];
    let bytes = 0;
    for await (const slice of this.files.slicesOf(message.partnerId, fileId)) {
      parts.push(decoder.decode(slice, { stream: true }));
      bytes += slice.length;
    }
    if (bytes !== message.metadata.size) {
      throw new Error(`the stored file ${fileId} of the message holds ${bytes} bytes, not ${message.metadata.size}`);
    }
    parts.push(decoder.decode());
    return { ...message, rawPayload: parts.join('') };
  }

  /** The payload's bytes as received, a slice at a time. */
  async *bytes(message: WithPayload): AsyncGenerator<Buffer> {
    const fileId = message.metadata?.payloadFile;
    if (fileId) {
      yield* this.files.slicesOf(message.partnerId, fileId);
    } else {
      yield Buffer.from(message.rawPayload, 'utf8');
    }
  }

  /** The first `maxBytes` of the payload as text, and its whole size in bytes. */
  async head(message: WithPayload, maxBytes: number): Promise<{ text: string; bytes: number; truncated: boolean }> {
    const fileId = message.metadata?.payloadFile;
    if (!fileId) {
      const bytes = Buffer.byteLength(message.rawPayload);
      // Cut by characters: at most maxBytes characters is at least that many bytes' worth of text.
      const truncated = message.rawPayload.length > maxBytes;
      return { text: truncated ? message.rawPayload.slice(0, maxBytes) : message.rawPayload, bytes, truncated };
    }
    const size = message.metadata.size ?? 0;
    const head = await this.files.readRange(message.partnerId, fileId, 0, maxBytes);
    const text = new TextDecoder(message.metadata.encoding === 'latin1' ? 'latin1' : 'utf-8', {
      ignoreBOM: true,
    }).decode(head, { stream: size > maxBytes });
    return { text, bytes: size, truncated: size > maxBytes };
  }
}
