import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { MessageRepository, OperationRepository } from '@dockbridge/audit';
import { ACKNOWLEDGMENT_PART_CHARS, MAX_INTERCHANGES_PER_PAYLOAD, translateEdi } from '@dockbridge/mapping';
import { FILE_CHUNK_BYTES, PartnerFileRepository, PartnerRepository } from '@dockbridge/partners';
import { mediumTranslator, RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { AcknowledgmentChunks, outboundFolder } from './acknowledgment-outbox';
import { directoryOf, ediSettingsOf, X12_CONTENT_TYPE } from './translators';

/**
 * A 997 too large to hold, stored in the partner's outbound chunks as it is written (medium: real
 * Postgres): the file it becomes reads back as the 997 written whole would.
 */
const ORG = '8d0f6a4e-1c2b-4f3a-9e5d-0a1b2c3d4e02';
const EDI = { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] };

/** One interchange of `count` 850s. */
function purchaseOrders(count: number): string {
  const sets: string[] = [];
  for (let i = 1; i <= count; i++) {
    const st = String(i).padStart(5, '0');
    sets.push(
      `ST*850*${st}`,
      `BEG*00*SA*PO-${i}**20261120`,
      'N1*ST*Main DC*92*DC01',
      'N1*SF*Kettle Foods*92*SUP-KETTLE',
      'PO1*1*12*CA*9.50**SK*SKU-100',
      `SE*6*${st}`,
    );
  }
  return [
    'ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*000000201*0*T*>',
    'GS*PO*KETTLE*ACMEDC*20261120*0830*201*X*004010',
    ...sets,
    `GE*${count}*201`,
    'IEA*1*000000201',
    '',
  ].join('~\n');
}

/** `count` interchanges of one 850 each, numbered from `first` (ISA13). */
function interchangesOf(count: number, first: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) {
    const control = String(first + i - 1);
    lines.push(
      `ISA*00*          *00*          *ZZ*KETTLE         *ZZ*ACMEDC         *261120*0830*U*00401*${control}*0*T*>`,
      `GS*PO*KETTLE*ACMEDC*20261120*0830*${i}*X*004010`,
      'ST*850*0001',
      `BEG*00*SA*PO-${i}**20261120`,
      'N1*ST*Main DC*92*DC01',
      'PO1*1*12*CA*9.50**SK*SKU-100',
      'SE*5*0001',
      `GE*1*${i}`,
      `IEA*1*${control}`,
    );
  }
  return lines.join('~\n') + '~\n';
}

describe('acknowledgments stored as they are written (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let files: PartnerFileRepository;
  let messages: MessageRepository;

  beforeAll(async () => {
    database = await startMediumDatabase();
    files = new PartnerFileRepository(database.dataSource);
    messages = new MessageRepository(database.dataSource);
    await new PartnerRepository(database.dataSource).upsert(
      { id: 'kettle', name: 'Kettle', locationOrganisationId: ORG, settings: { edi: EDI } },
      'api',
    );
  }, 60_000);
  afterAll(() => database?.close());

  const count = async (sql: string, params: unknown[] = []) =>
    Number(((await database.dataSource.query(sql, params)) as { n: string }[])[0].n);
  const chunksOf = (fileId: string) =>
    count('SELECT count(*) AS n FROM partner_file_chunk WHERE file_id = $1', [fileId]);
  /** A message whose acknowledgments a test writes itself. */
  const recorded = () =>
    messages.record({ partnerId: 'kettle', channel: 'http-edi', rawPayload: 'ISA', contentType: X12_CONTENT_TYPE });

  it('become an outbound file of their message a MiB chunk at a time, replacing one of the same name', async () => {
    const message = await recorded();
    const outbox = outboundFolder(files);
    await outbox.deliver('kettle', message.id, [{ kind: '997', name: '997_big.x12', content: 'an earlier try' }]);
    // Parts of odd sizes, some across a chunk's end, one character of two bytes.
    const parts = ['ISA*', 'é', 'x'.repeat(FILE_CHUNK_BYTES - 6), 'AK2*850*1~\n'.repeat(150_000), 'IEA*1*000000001~'];
    const draft = outbox.draft();
    for (const part of parts.slice(0, -1)) {
      await draft.write(part);
    }
    const stored = await draft.finish(parts[parts.length - 1]);
    const text = Buffer.from(parts.join(''), 'utf8');
    expect(stored).toMatchObject({ size: text.length, sha256: createHash('sha256').update(text).digest('hex') });
    expect(await chunksOf(stored.id)).toBe(Math.ceil(text.length / FILE_CHUNK_BYTES));

    await outbox.deliver('kettle', message.id, [{ kind: '997', name: '997_big.x12', stored }]);
    const file = await files.read('kettle', 'outbound', '997_big.x12');
    expect(file).toMatchObject({ id: stored.id, kind: '997', messageId: message.id, size: text.length });
    expect(file!.content.equals(text)).toBe(true);
    expect((await files.listByMessage(message.id, 100)).files.map((f) => [f.name, f.removedAt === null])).toEqual([
      ['997_big.x12', false],
      ['997_big.x12', true],
    ]);
  });

  it('leave nothing when discarded', async () => {
    const draft = new AcknowledgmentChunks(files);
    await draft.write('y'.repeat(FILE_CHUNK_BYTES + 10));
    const id = (draft as unknown as { id: string }).id;
    expect(await chunksOf(id)).toBe(1);
    await draft.discard();
    expect(await chunksOf(id)).toBe(0);
  });

  const translatorOf = () =>
    mediumTranslator(database.dataSource, {
      queues: new RecordingQueues().asQueues(),
      messages,
      outbox: outboundFolder(files),
      options: { batchThreshold: 1_000, batchSize: 1_000 },
    });
  const outboundOf = async (messageId: string) =>
    (
      (await database.dataSource.query(
        `SELECT count(*)::int AS n, count(DISTINCT name)::int AS names FROM partner_file
          WHERE message_id = $1 AND folder = 'outbound' AND removed_at IS NULL`,
        [messageId],
      )) as { n: number; names: number }[]
    )[0];

  it('are one file per interchange, however many, and the message lists its first with their count', async () => {
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'http-edi',
      rawPayload: interchangesOf(1_200, 100_000_000),
      contentType: X12_CONTENT_TYPE,
    });
    expect(await translatorOf().execute(message.id)).toBe('queued');
    expect(await outboundOf(message.id)).toEqual({ n: 1_200, names: 1_200 });
    const listed = await files.listByMessage(message.id, 100);
    expect(listed.total).toBe(1_200);
    expect(listed.files).toHaveLength(100);
    expect(listed.files.every((f) => f.kind === '997')).toBe(true);
  }, 60_000);

  // ISA13 is the sender's: one with a '/' (refused, with a TA1) made the TA1's file name invalid and
  // failed the whole translation, the other interchanges' 997s with it.
  it('are named safely whatever the ISA13 they acknowledge', async () => {
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'http-edi',
      rawPayload: interchangesOf(1, 300_000_000) + interchangesOf(1, 400_000_000).replaceAll('400000000', '40/000000'),
      contentType: X12_CONTENT_TYPE,
    });
    expect(await translatorOf().execute(message.id)).toBe('queued');
    const names = (await files.listByMessage(message.id, 10)).files.map((f) => f.name).sort();
    expect(names).toEqual([
      expect.stringMatching(/^997_300000000_[0-9a-f]{12}_1\.x12$/),
      expect.stringMatching(/^TA1_invalid_[0-9a-f]{12}_2\.x12$/),
    ]);
  });

  it('written together replace live files of their names, the later of two of one name kept', async () => {
    await files.put('kettle', 'outbound', '997_a.x12', Buffer.from('old a'));
    const written = await files.putMany('kettle', 'outbound', [
      { name: '997_a.x12', content: Buffer.from('new a'), kind: '997' },
      { name: '997_b.x12', content: Buffer.from('first b'), kind: '997' },
      { name: '997_b.x12', content: Buffer.from('second b'), kind: '997' },
    ]);
    expect(written.map((f) => f.name).sort()).toEqual(['997_a.x12', '997_b.x12']);
    expect((await files.read('kettle', 'outbound', '997_a.x12'))!.content.toString()).toBe('new a');
    const b = (await files.read('kettle', 'outbound', '997_b.x12'))!;
    expect([b.content.toString(), b.size, b.kind]).toEqual(['second b', 8, '997']);
    expect(b.sha256).toBe(createHash('sha256').update('second b').digest('hex'));
  });

  const strayChunks = () =>
    count(
      `SELECT count(*) AS n FROM partner_file_chunk c WHERE NOT EXISTS (SELECT 1 FROM partner_file f WHERE f.id = c.file_id)`,
    );

  it('are written a few MiB at a time, however large each is', async () => {
    const message = await recorded();
    const written = jest.spyOn(files, 'putMany');
    try {
      const big = (n: number) => ({
        kind: '997' as const,
        name: `997_big_${n}.x12`,
        content: String(n).repeat(60_000),
      });
      await outboundFolder(files).deliver('kettle', message.id, [
        ...Array.from({ length: 100 }, (_, n) => big(n)),
        { kind: 'TA1', name: 'TA1_small.x12', content: 'TA1' },
      ]);
      const calls = written.mock.calls.map(([, , batch]) => batch.reduce((sum, f) => sum + f.content.length, 0));
      expect(calls.length).toBeGreaterThan(1);
      expect(Math.max(...calls)).toBeLessThanOrEqual(4 * 1024 * 1024);
      expect((await files.listByMessage(message.id, 200)).total).toBe(101);
    } finally {
      written.mockRestore();
    }
  });

  it('are not written for a payload of more interchanges than one may hold: it is rejected whole', async () => {
    const before = await strayChunks();
    // The first interchange's 997 outgrows a part (stored in chunks as it is written): gone too.
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'http-edi',
      rawPayload:
        purchaseOrders(4_000).replaceAll('000000201', '000000202') +
        interchangesOf(MAX_INTERCHANGES_PER_PAYLOAD, 200_000_000),
      contentType: X12_CONTENT_TYPE,
    });
    expect(await translatorOf().execute(message.id)).toBe('rejected');
    expect(await strayChunks()).toBe(before);
    const rejected = (await messages.findById(message.id))!;
    expect(rejected.status).toBe('rejected');
    expect(rejected.statusReason).toBe(
      `the payload holds more than ${MAX_INTERCHANGES_PER_PAYLOAD} interchanges (the next is ISA13 ${200_000_000 + MAX_INTERCHANGES_PER_PAYLOAD - 1}): ` +
        `nothing of it is delivered or acknowledged; send at most ${MAX_INTERCHANGES_PER_PAYLOAD} interchanges in a file`,
    );
    expect(await outboundOf(message.id)).toEqual({ n: 0, names: 0 });
    expect(await new OperationRepository(database.dataSource).listByMessage(message.id)).toEqual([]);
    expect(rejected.metadata.interchanges).toBeUndefined();
  }, 120_000);

  it('are what a translation of many sets answers, written whole or in parts alike', async () => {
    const raw = purchaseOrders(4_000);
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'http-edi',
      rawPayload: raw,
      contentType: X12_CONTENT_TYPE,
    });
    expect(await translatorOf().execute(message.id)).toBe('queued');

    const [ack] = (await files.listByMessage(message.id, 100)).files.filter((f) => f.folder === 'outbound');
    const chunked = (await database.dataSource.query(
      'SELECT content IS NULL AS chunked FROM partner_file WHERE id = $1',
      [ack.id],
    )) as { chunked: boolean }[];
    expect(chunked[0].chunked).toBe(true);
    const content = (await files.read('kettle', 'outbound', ack.name))!.content.toString('utf8');
    expect(content.length).toBeGreaterThan(ACKNOWLEDGMENT_PART_CHARS);
    // The 997 written whole, with the control number and minute the translation used.
    const control = Number(/^ISA(?:\*[^*]*){12}\*(\d{9})\*/.exec(content)![1]);
    const [, y, mo, d, h, mi] = /\nGS\*FA\*[^*]*\*[^*]*\*(\d{4})(\d\d)(\d\d)\*(\d\d)(\d\d)\*/
      .exec(content)!
      .map(Number);
    const partner = (await new PartnerRepository(database.dataSource).findById('kettle'))!;
    const whole = await translateEdi({
      raw,
      settings: ediSettingsOf(partner)!,
      senderIds: EDI.senderIds,
      directory: directoryOf(partner),
      nextControlNumber: async () => control,
      now: new Date(Date.UTC(y, mo - 1, d, h, mi)),
    });
    expect(content).toBe(whole.acknowledgments[0].content);
  }, 60_000);
});
