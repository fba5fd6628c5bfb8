import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { DataSource } from 'typeorm';
import { MessageRepository, type NewMessage } from '@dockbridge/audit';
import { FILE_CHUNK_BYTES, PartnerFileRepository, PartnerRepository, READ_SLICE_BYTES } from '@dockbridge/partners';
import { RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { EVERY_BYTE_FILES, readSlices, storeChunkedAndWhole } from '../../../../test/support/partner-files';
import { MessagePayloads } from '../translate/message-payloads';
import { UploadRefused } from './inbound-upload';
import {
  EmptyUpload,
  ReceiveUpload,
  UploadBodyTooLarge,
  UploadCutOff,
  UploadsBusy,
  type UploadOptions,
} from './receive-upload';

/**
 * ReceiveUpload on a real Postgres, the queues recorded: an upload is stored in chunks as it
 * arrives, and its file and message commit together or not at all.
 */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e01';
const MiB = 1024 * 1024;

/** An X12-looking file of `bytes` bytes. */
const x12 = (bytes: number) => Buffer.from(`ISA*00*${'ST*856*0001~'.repeat(Math.ceil(bytes / 12))}`.slice(0, bytes));

describe('ReceiveUpload (medium: real Postgres, recorded queues)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let files: PartnerFileRepository;
  let messages: MessageRepository;
  let queues: RecordingQueues;
  let uploads: ReceiveUpload;

  beforeAll(async () => {
    database = await startMediumDatabase();
    files = new PartnerFileRepository(database.dataSource);
    messages = new MessageRepository(database.dataSource);
    await new PartnerRepository(database.dataSource).upsert(
      { id: 'carrier', name: 'Carrier', locationOrganisationId: ORG },
      'api',
    );
    queues = new RecordingQueues();
    uploads = new ReceiveUpload(files, messages, queues.asQueues());
  }, 60_000);
  afterAll(() => database?.close());

  const chunkCount = async (fileId: string) =>
    Number(
      (await database.dataSource.query(`SELECT count(*) AS n FROM partner_file_chunk WHERE file_id = $1`, [fileId]))[0]
        .n,
    );
  /** Sends `content` as a client would: 32 KiB writes, each answered before the next. */
  const send = async (name: string, content: Buffer) => {
    const upload = uploads.start('carrier', name, 64 * MiB);
    for (let offset = 0; offset < content.length; offset += 32 * 1024) {
      await upload.write(offset, content.subarray(offset, offset + 32 * 1024));
    }
    return upload;
  };

  it('stores the upload in chunks once, and its message points at it instead of copying it', async () => {
    const content = x12(2.5 * MiB);
    const upload = await send('ASN-1.edi', content);
    const { file, messageId } = await uploads.receive(upload);

    expect(file).toMatchObject({ name: 'ASN-1.edi', size: content.length, messageId });
    expect(file.sha256).toBe(createHash('sha256').update(content).digest('hex'));
    expect(await chunkCount(file.id)).toBe(Math.ceil(content.length / FILE_CHUNK_BYTES));
    const message = (await messages.findById(messageId!))!;
    expect(message).toMatchObject({ channel: 'sftp', rawPayload: '', sha256: file.sha256 });
    expect(message.metadata).toMatchObject({ payloadFile: file.id, fileId: file.id, size: content.length });
    const withText = await new MessagePayloads(files, messages).withText(message);
    expect(withText.rawPayload).toBe(content.toString('utf8'));
    expect(queues.translated).toContain(messageId);
    expect((await files.read('carrier', 'inbound', 'ASN-1.edi'))!.content.equals(content)).toBe(true);
  });

  it('reads a stored upload back as text a slice at a time, a character cut by a slice kept whole', async () => {
    const content = Buffer.concat([x12(READ_SLICE_BYTES - 1), Buffer.from('é~'), x12(MiB)]);
    const { messageId } = await uploads.receive(await send('ASN-UTF8.edi', content));
    const message = (await messages.findById(messageId!))!;
    const slices: string[] = [];
    for await (const slice of new MessagePayloads(files, messages).textOf(message)) {
      slices.push(slice);
    }
    expect(slices.filter(Boolean).length).toBeGreaterThan(1);
    expect(slices.join('')).toBe(content.toString('utf8'));
    // Any slice size reads the same bytes, across the 1 MiB chunks it was stored in.
    for (const sliceBytes of [300_000, FILE_CHUNK_BYTES, 3 * FILE_CHUNK_BYTES + 7]) {
      const parts: Buffer[] = [];
      for await (const part of files.slicesOf('carrier', message.metadata!.payloadFile!, sliceBytes)) {
        expect(part.length).toBeLessThanOrEqual(sliceBytes);
        parts.push(part);
      }
      expect(Buffer.concat(parts).equals(content)).toBe(true);
    }
  });

  it('reads ASCII slices as they are and decodes the others, in UTF-8 and in Latin-1 files alike', async () => {
    const text = async (content: Buffer) => {
      const { messageId } = await uploads.receive(await send(`MIXED-${content.length}.edi`, content));
      const message = (await messages.findById(messageId!))!;
      const slices: string[] = [];
      for await (const slice of new MessagePayloads(files, messages).textOf(message)) {
        slices.push(slice);
      }
      return { encoding: message.metadata!.encoding ?? 'utf-8', text: slices.join('') };
    };
    // Non-ASCII characters inside a slice, cut by a slice's end (2 and 3 bytes), then ASCII slices again.
    const slice = 256 * 1024;
    const at = (offset: number, bytes: Buffer) => [x12(offset), bytes];
    const utf8 = Buffer.concat([
      ...at(10, Buffer.from('é')),
      ...at(slice - 10 - 2 - 1, Buffer.from('é')),
      ...at(2 * slice - (slice + 1) - 1, Buffer.from('€')),
      x12(3 * slice),
    ]);
    expect(await text(utf8)).toEqual({ encoding: 'utf-8', text: utf8.toString('utf8') });
    // Not UTF-8 (0xE9 0x80): read as Latin-1 files always were, windows-1252 (0x80 is €).
    const latin1 = Buffer.concat([...at(slice - 1, Buffer.from([0xe9, 0x80])), x12(2 * slice)]);
    const windows1252 = `${x12(slice - 1).toString()}é€${x12(2 * slice).toString()}`; // WHATWG's 'latin1'
    expect(await text(latin1)).toEqual({ encoding: 'latin1', text: windows1252 });
  });

  it('reads back every byte exactly, stored whole or in chunks, a NUL byte or bytes above 127 in any slice', async () => {
    for (const [name, content] of EVERY_BYTE_FILES) {
      const [id, wholeId] = await storeChunkedAndWhole(files, 'carrier', name, content);
      for (const fileId of [id, wholeId]) {
        for (const sliceBytes of [READ_SLICE_BYTES, 300_001]) {
          expect((await readSlices(files, 'carrier', fileId, sliceBytes)).equals(content)).toBe(true);
        }
        expect(
          (await files.readRange('carrier', fileId, FILE_CHUNK_BYTES - 3, 600)).equals(
            content.subarray(FILE_CHUNK_BYTES - 3, FILE_CHUNK_BYTES + 597),
          ),
        ).toBe(true);
      }
      // A reader that stops after the first slice leaves the one read ahead behind, harmlessly.
      for await (const part of files.slicesOf('carrier', id, 1000)) {
        expect(part.equals(content.subarray(0, 1000))).toBe(true);
        break;
      }
    }
  });

  it('commits the file and its message together: a failed message insert leaves no file', async () => {
    const failing = new (class extends MessageRepository {
      override async recordIn(manager: EntityManager, input: NewMessage): Promise<string> {
        await super.recordIn(manager, input);
        throw new Error('the connection dropped after the insert');
      }
    })(database.dataSource);
    const upload = await send('ASN-2.edi', x12(1.5 * MiB));
    await expect(new ReceiveUpload(files, failing, queues.asQueues()).receive(upload)).rejects.toThrow(
      /connection dropped/,
    );
    expect(await files.stat('carrier', 'inbound', 'ASN-2.edi')).toBeNull();
    expect(await chunkCount(upload.fileId)).toBe(0);
    expect((await messages.search({ partnerId: 'carrier', fileName: 'ASN-2.edi' })).items).toEqual([]);
  });

  it('refuses a NUL byte and keeps nothing of the upload', async () => {
    const content = x12(1.2 * MiB);
    content[MiB + 7] = 0;
    const upload = await send('ASN-3.edi', content);
    await expect(uploads.receive(upload)).rejects.toBeInstanceOf(UploadRefused);
    expect(await files.stat('carrier', 'inbound', 'ASN-3.edi')).toBeNull();
    expect(await chunkCount(upload.fileId)).toBe(0);
  });

  it('stores a temporary upload as a file, resumes it, and records it when it gets its final name', async () => {
    const content = x12(2 * MiB + 5);
    const first = await send('ASN-4.edi.part', content.subarray(0, MiB + 100));
    const { file: part, messageId: none } = await uploads.receive(first, true);
    expect(none).toBeNull();

    const resumed = await uploads.resume(part, 64 * MiB);
    await resumed.write(MiB + 100, content.subarray(MiB + 100));
    const { file: whole } = await uploads.receive(resumed, true);
    expect(whole.size).toBe(content.length);
    expect(await files.stat('carrier', 'inbound', 'ASN-4.edi.part')).toMatchObject({ id: whole.id });

    const renamed = await files.rename('carrier', 'inbound', 'ASN-4.edi.part', 'ASN-4.edi');
    const messageId = await uploads.complete(renamed);
    const message = (await messages.findById(messageId))!;
    expect(message.metadata.payloadFile).toBe(whole.id);
    expect((await new MessagePayloads(files, messages).withText(message)).rawPayload).toBe(content.toString('utf8'));
    await expect(uploads.complete(renamed)).rejects.toThrow(/became a message already/);
  });

  /** A body as a socket hands it over, 64 KiB at a time; `pulled` counts what was read of it. */
  const body = (content: Buffer, fail?: Error) => {
    const read = { pulled: 0 };
    const pieces = async function* () {
      for (let offset = 0; offset < content.length; offset += 64 * 1024) {
        read.pulled = Math.min(content.length, offset + 64 * 1024);
        yield content.subarray(offset, offset + 64 * 1024);
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (fail) {
        throw fail;
      }
    };
    return { stream: pieces(), read };
  };
  const looseChunks = async () =>
    Number(
      (
        await database.dataSource.query(
          `SELECT count(*) AS n FROM partner_file_chunk c WHERE NOT EXISTS (SELECT 1 FROM partner_file f WHERE f.id = c.file_id)`,
        )
      )[0].n,
    );

  it('receives a body sent as one stream the way it receives an SFTP upload, as an http-edi message', async () => {
    const content = x12(2.5 * MiB);
    const named = await uploads.receiveStream(body(content).stream, {
      partnerId: 'carrier',
      platformAccount: 'acct',
      fileName: 'HTTP-1.edi',
      maxBytes: 4 * MiB,
    });
    expect(named.file).toMatchObject({ name: 'HTTP-1.edi', size: content.length, folder: 'inbound' });
    expect(await chunkCount(named.file.id)).toBe(3);
    const message = (await messages.findById(named.messageId!))!;
    expect(message).toMatchObject({ channel: 'http-edi', rawPayload: '', sha256: named.file.sha256 });
    expect(message.metadata).toMatchObject({
      via: 'http',
      fileName: 'HTTP-1.edi',
      size: content.length,
      payloadFile: named.file.id,
      platformAccount: 'acct',
    });
    expect((await new MessagePayloads(files, messages).withText(message)).rawPayload).toBe(content.toString('utf8'));
    expect(queues.translated).toContain(named.messageId);

    const unnamed = await uploads.receiveStream(body(x12(100)).stream, { partnerId: 'carrier', maxBytes: MiB });
    expect(unnamed.file.name).toBe(`http-${unnamed.file.id}.x12`);
    expect((await messages.findById(unnamed.messageId!))!.metadata.fileName).toBeUndefined();
  });

  it('refuses a stream as it crosses the limit, reading no further, and keeps nothing', async () => {
    const limited = new ReceiveUpload(files, messages, queues.asQueues(), limits({ maxConcurrentUploads: 1 }));
    const { stream, read } = body(x12(3 * MiB));
    const refusal = limited.receiveStream(stream, { partnerId: 'carrier', fileName: 'BIG.edi', maxBytes: MiB + 5 });
    await expect(refusal).rejects.toThrow(
      new UploadBodyTooLarge(
        `body: the upload reached ${MiB + 64 * 1024} bytes, over the limit of ${MiB + 5} bytes (sftp.maxFileBytes); nothing was recorded`,
      ),
    );
    expect(read.pulled).toBe(MiB + 64 * 1024);
    expect(await looseChunks()).toBe(0);
    expect(await files.stat('carrier', 'inbound', 'BIG.edi')).toBeNull();
    // Declared over the limit: refused before a byte is read.
    const declared = body(x12(MiB));
    await expect(
      limited.receiveStream(declared.stream, { partnerId: 'carrier', maxBytes: 1000, declaredBytes: MiB }),
    ).rejects.toThrow(/declares 1048576 bytes, over the limit of 1000 bytes/);
    expect(declared.read.pulled).toBe(0);
    expect(() => limited.start('carrier', 'NEXT.edi', MiB)).not.toThrow(); // the refused upload gave its place back
  });

  it('keeps nothing of a stream that fails or holds only whitespace', async () => {
    const cut = body(x12(1.5 * MiB), new Error('aborted'));
    await expect(
      uploads.receiveStream(cut.stream, { partnerId: 'carrier', fileName: 'CUT.edi', maxBytes: 4 * MiB }),
    ).rejects.toThrow(new UploadCutOff('the body ended early (aborted); nothing was recorded'));
    expect(await looseChunks()).toBe(0);
    expect(await files.stat('carrier', 'inbound', 'CUT.edi')).toBeNull();
    for (const blank of ['', ' \r\n\t ']) {
      await expect(
        uploads.receiveStream(body(Buffer.from(blank)).stream, { partnerId: 'carrier', maxBytes: MiB }),
      ).rejects.toBeInstanceOf(EmptyUpload);
    }
    expect(await looseChunks()).toBe(0);
  });

  it('receives at most maxConcurrentUploads at once, and takes new ones as uploads end', async () => {
    const limited = new ReceiveUpload(files, messages, queues.asQueues(), limits({ maxConcurrentUploads: 2 }));
    const first = limited.start('carrier', 'A.edi', MiB);
    const second = limited.start('carrier', 'B.edi', MiB);
    expect(() => limited.start('carrier', 'C.edi', MiB)).toThrow(
      new UploadsBusy(
        'the server is receiving 2 uploads at once, its limit (sftp.maxConcurrentUploads); try again in a moment',
      ),
    );
    await first.write(0, x12(100));
    await limited.receive(first);
    await second.discard();
    const third = limited.start('carrier', 'C.edi', MiB);
    const refused = limited.start('carrier', 'D.edi', MiB);
    await refused.write(0, Buffer.from('ISA\u0000'));
    await expect(limited.receive(refused)).rejects.toBeInstanceOf(UploadRefused);
    expect(() => limited.start('carrier', 'E.edi', MiB)).not.toThrow(); // the refused one ended too
    await third.discard();
  });

  it("keeps slots for other partners: one partner's uploads at once are limited on their own", async () => {
    const limited = new ReceiveUpload(
      files,
      messages,
      queues.asQueues(),
      limits({ maxConcurrentUploads: 3, maxUploadsPerPartner: 2 }),
    );
    const first = limited.start('carrier', 'A.edi', MiB);
    limited.start('carrier', 'B.edi', MiB);
    expect(() => limited.start('carrier', 'C.edi', MiB)).toThrow(
      new UploadsBusy(
        "the server is receiving 2 uploads of yours at once, a partner's limit (sftp.maxUploadsPerPartner); try again in a moment",
      ),
    );
    const other = limited.start('other', 'A.edi', MiB); // another partner still gets in
    await first.discard();
    expect(() => limited.start('carrier', 'C.edi', MiB)).not.toThrow();
    await other.discard();
  });

  it('takes no new upload while those under way hold their most not yet stored, and takes one once they drain', async () => {
    const limited = new ReceiveUpload(files, messages, queues.asQueues(), limits({ maxHeldBytes: 2 * MiB }));
    const first = limited.start('carrier', 'A.edi', 8 * MiB);
    // Held: written ahead of a gap, so not stored until the gap is filled.
    await first.write(1, Buffer.alloc(2 * MiB, 0x41));
    expect(() => limited.start('carrier', 'B.edi', MiB)).toThrow(
      new UploadsBusy(
        `the server's uploads hold ${2 * MiB} bytes not yet stored, past its limit (sftp.maxHeldBytes ${2 * MiB}); try again in a moment`,
      ),
    );
    await first.write(0, Buffer.from('I'));
    await first.finish(); // stored: it holds nothing now
    await first.discard();
    expect(() => limited.start('carrier', 'B.edi', MiB)).not.toThrow();
  });

  it("keeps room for other partners: one partner's held bytes, however many, do not shut them out", async () => {
    // One upload a partner: a partner holding none gets in until all hold 2 MiB + 1 x 24 MiB.
    const limited = new ReceiveUpload(
      files,
      messages,
      queues.asQueues(),
      limits({ maxHeldBytes: 2 * MiB, maxUploadsPerPartner: 1 }),
    );
    const hog = limited.start('carrier', 'A.edi', 32 * MiB);
    await hog.write(1, Buffer.alloc(16 * MiB - 1, 0x41)); // past the limit, ahead of a gap it never fills
    expect(() => limited.start('carrier', 'B.edi', MiB)).toThrow(UploadsBusy); // its own slot is taken
    const other = limited.start('other', 'B.edi', 32 * MiB); // a partner holding nothing still gets in
    await other.write(1, Buffer.alloc(16 * MiB - 1, 0x41)); // now two partners hold past 26 MiB
    expect(() => limited.start('third', 'C.edi', MiB)).toThrow(
      new UploadsBusy(
        `the server's uploads hold ${32 * MiB - 2} bytes not yet stored, past its limit (sftp.maxHeldBytes ${2 * MiB}, ${26 * MiB} for a partner holding none); try again in a moment`,
      ),
    );
    await hog.discard();
    await other.discard();
    expect(() => limited.start('third', 'C.edi', MiB)).not.toThrow();
  });
});

function limits(options: Partial<UploadOptions>): UploadOptions {
  return { maxConcurrentUploads: 16, maxUploadsPerPartner: 16, maxHeldBytes: 64 * MiB, ...options };
}
