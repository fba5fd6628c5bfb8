import { TextDecoder } from 'node:util';
import { Injectable } from '@nestjs/common';
import { MessageRepository, type Message, type MessageSummary } from '@dockbridge/audit';
import { PartnerFileRepository } from '@dockbridge/partners';

type WithPayload = Pick<Message, 'partnerId' | 'rawPayload' | 'metadata'>;

/**
 * Bytes decoded at a time for translation. Small on purpose: the reader keeps slices of the text
 * it is given, each of which holds its whole string alive, and strings of over ~1 MiB live outside
 * V8's heap, where the garbage collector notices them late: 4 MiB slices made a 100 MiB file cost
 * the worker ~250 MiB of such memory at its peak (bench/README.md).
 */
const TEXT_SLICE_BYTES = 256 * 1024;

/** A character of a latin1 slice that is not ASCII (a byte over 127). */
const NOT_ASCII = /[\u0080-\uffff]/;

/**
 * A message's payload, wherever it is kept: its text column, or the stored file an upload became
 * (`metadata.payloadFile`), read a slice at a time and decoded as it was received.
 */
@Injectable()
export class MessagePayloads {
  constructor(
    private readonly files: PartnerFileRepository,
    private readonly messages: MessageRepository,
  ) {}

  /** The message with its payload text in `rawPayload` (translators that take their text whole). */
  async withText<M extends WithPayload>(message: M): Promise<M> {
    if (!message.metadata?.payloadFile) {
      return message;
    }
    const parts: string[] = [];
    for await (const part of this.textOf(message)) {
      parts.push(part);
    }
    return { ...message, rawPayload: parts.join('') };
  }

  /** The payload's text a slice at a time (decoded as it was received): a stored upload is never one string. */
  async *textOf(message: WithPayload): AsyncGenerator<string> {
    const fileId = message.metadata?.payloadFile;
    if (!fileId) {
      yield message.rawPayload;
      return;
    }
    const decoder = new TextDecoder(message.metadata.encoding === 'latin1' ? 'latin1' : 'utf-8', { ignoreBOM: true });
    // Whether the decoder may hold the first bytes of a character the next slice ends.
    let holding = false;
    for await (const slice of this.files.latin1SlicesOf(message.partnerId, fileId, TEXT_SLICE_BYTES)) {
      // ASCII reads the same in every encoding: as it came, with neither a copy to bytes nor a decode.
      if (!holding && !NOT_ASCII.test(slice)) {
        yield slice;
        continue;
      }
      yield decoder.decode(Buffer.from(slice, 'latin1'), { stream: true });
      holding = slice.charCodeAt(slice.length - 1) > 0x7f;
    }
    yield decoder.decode();
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

  /** The beginning of the payload as text (at most `maxBytes` of a file, `maxBytes` characters of text) and its whole size in bytes. */
  async head(
    message: Pick<MessageSummary, 'id' | 'partnerId' | 'metadata'>,
    maxBytes: number,
  ): Promise<{ text: string; bytes: number; truncated: boolean }> {
    const fileId = message.metadata?.payloadFile;
    if (!fileId) {
      const head = (await this.messages.payloadHead(message.id, maxBytes)) ?? { text: '', bytes: 0 };
      return { ...head, truncated: Buffer.byteLength(head.text) < head.bytes };
    }
    const size = message.metadata.size ?? 0;
    const head = await this.files.readRange(message.partnerId, fileId, 0, maxBytes);
    const text = new TextDecoder(message.metadata.encoding === 'latin1' ? 'latin1' : 'utf-8', {
      ignoreBOM: true,
    }).decode(head, { stream: size > maxBytes });
    return { text, bytes: size, truncated: size > maxBytes };
  }
}
