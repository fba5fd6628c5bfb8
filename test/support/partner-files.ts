import { createHash, randomUUID } from 'node:crypto';
import { FILE_CHUNK_BYTES, type PartnerFileRepository } from '@dockbridge/partners';

const EVERY_BYTE = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

/** `bytes` repeated to `size` bytes. */
const repeat = (bytes: Buffer, size: number) =>
  Buffer.concat(Array.from({ length: Math.ceil(size / bytes.length) }, () => bytes)).subarray(0, size);

/** Files of every byte value over more than one chunk: without a NUL byte, and with one after the first chunk. */
export const EVERY_BYTE_FILES = [
  ['HIGH.bin', repeat(EVERY_BYTE.subarray(1), 2 * FILE_CHUNK_BYTES + 4099)],
  [
    'NUL.bin',
    Buffer.concat([
      repeat(EVERY_BYTE.subarray(1), FILE_CHUNK_BYTES + 5),
      EVERY_BYTE,
      repeat(EVERY_BYTE.subarray(1), 300),
    ]),
  ],
] as const;

/** `content` stored both ways a file is: as an upload's chunks (inbound) and whole (outbound). Their ids. */
export async function storeChunkedAndWhole(
  files: PartnerFileRepository,
  partnerId: string,
  name: string,
  content: Buffer,
): Promise<[chunked: string, whole: string]> {
  const id = randomUUID();
  for (let seq = 0; seq * FILE_CHUNK_BYTES < content.length; seq++) {
    await files.appendChunk(id, seq, content.subarray(seq * FILE_CHUNK_BYTES, (seq + 1) * FILE_CHUNK_BYTES));
  }
  const sha256 = createHash('sha256').update(content).digest('hex');
  await files.completeUpload({ id, partnerId, name, size: content.length, sha256 });
  return [id, (await files.put(partnerId, 'outbound', name, content)).id];
}

/** A stored file's bytes, read `sliceBytes` at a time. */
export async function readSlices(
  files: PartnerFileRepository,
  partnerId: string,
  fileId: string,
  sliceBytes: number,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of files.slicesOf(partnerId, fileId, sliceBytes)) {
    parts.push(part);
  }
  return Buffer.concat(parts);
}
