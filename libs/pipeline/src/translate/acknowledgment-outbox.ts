import { createHash, randomUUID } from 'node:crypto';
import { FILE_CHUNK_BYTES, type PartnerFileRepository } from '@dockbridge/partners';
import type { AcknowledgmentOutbox } from './translate-message';
import type { AcknowledgmentDraft, StoredAcknowledgment } from './translators';

/**
 * A 997/999 stored as partner file chunks as it is written, a MiB at a time with its running SHA-256,
 * so the worker holds a chunk of it whatever the number of sets it answers. The file row that makes it
 * the partner's comes after the translation (`completeOutbound`); chunks of a translation that never
 * gets there have no file and are purged by age, as an abandoned upload's are.
 */
export class AcknowledgmentChunks implements AcknowledgmentDraft {
  private readonly id = randomUUID();
  private readonly hash = createHash('sha256');
  private chunk = Buffer.allocUnsafe(FILE_CHUNK_BYTES);
  private filled = 0;
  private seq = 0;
  private size = 0;

  constructor(private readonly files: Pick<PartnerFileRepository, 'appendChunk' | 'discardChunks'>) {}

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    for (let from = 0; from < bytes.length;) {
      const copied = bytes.copy(this.chunk, this.filled, from);
      this.filled += copied;
      from += copied;
      if (this.filled === FILE_CHUNK_BYTES) {
        await this.store();
      }
    }
  }

  async finish(text: string): Promise<StoredAcknowledgment> {
    await this.write(text);
    if (this.filled > 0) {
      await this.store();
    }
    return { id: this.id, size: this.size, sha256: this.hash.digest('hex') };
  }

  async discard(): Promise<void> {
    await this.files.discardChunks(this.id);
  }

  private async store(): Promise<void> {
    const data = this.chunk.subarray(0, this.filled);
    await this.files.appendChunk(this.id, this.seq++, data);
    this.hash.update(data);
    this.size += data.length;
    this.chunk = Buffer.allocUnsafe(FILE_CHUNK_BYTES);
    this.filled = 0;
  }
}

/**
 * A translation's acknowledgments are written FILES_PER_COMMIT files or COMMIT_BYTES at a time,
 * whichever comes first, in one transaction each (a commit per interchange is the cost otherwise);
 * a 997 held whole is up to 64 KiB, so the bytes bound what one statement carries.
 */
const FILES_PER_COMMIT = 500;
const COMMIT_BYTES = 4 * 1024 * 1024;

/** Acknowledgments land in the partner's SFTP outbound folder (stored in Postgres, so any replica serves them). */
export const outboundFolder = (files: PartnerFileRepository): AcknowledgmentOutbox => ({
  deliver: async (partnerId, messageId, acknowledgments) => {
    const options = { messageId };
    for (const ack of acknowledgments) {
      if (ack.stored) {
        await files.completeOutbound({ ...ack.stored, partnerId, name: ack.name }, { ...options, kind: ack.kind });
      }
    }
    let batch: { name: string; content: Buffer; kind: string; messageId: string }[] = [];
    let bytes = 0;
    for (const ack of acknowledgments) {
      if (ack.content === undefined) {
        continue;
      }
      const content = Buffer.from(ack.content, 'utf8');
      if (batch.length === FILES_PER_COMMIT || (batch.length > 0 && bytes + content.length > COMMIT_BYTES)) {
        await files.putMany(partnerId, 'outbound', batch);
        batch = [];
        bytes = 0;
      }
      batch.push({ name: ack.name, content, kind: ack.kind, ...options });
      bytes += content.length;
    }
    if (batch.length > 0) {
      await files.putMany(partnerId, 'outbound', batch);
    }
  },
  draft: () => new AcknowledgmentChunks(files),
});
