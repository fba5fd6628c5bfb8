import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { InterchangeRepository, MessageRepository, OperationRepository } from '@dockbridge/audit';
import { ACKNOWLEDGMENT_PART_CHARS, translateEdi } from '@dockbridge/mapping';
import {
  FILE_CHUNK_BYTES,
  PartnerFileRepository,
  PartnerMappingRepository,
  PartnerRepository,
} from '@dockbridge/partners';
import { RecordingQueues, startMediumDatabase } from '../../../../test/support/medium';
import { AcknowledgmentChunks, outboundFolder } from './acknowledgment-outbox';
import { MessagePayloads } from './message-payloads';
import { TranslateMessage } from './translate-message';
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

  const chunksOf = async (fileId: string) =>
    Number(
      (
        (await database.dataSource.query('SELECT count(*) AS n FROM partner_file_chunk WHERE file_id = $1', [
          fileId,
        ])) as { n: string }[]
      )[0].n,
    );

  it('become an outbound file of their message a MiB chunk at a time, replacing one of the same name', async () => {
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'http-edi',
      rawPayload: 'ISA',
      contentType: X12_CONTENT_TYPE,
    });
    const outbox = outboundFolder(files);
    await outbox.deliver('kettle', message.id, { kind: '997', name: '997_big.x12', content: 'an earlier try' });
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

    await outbox.deliver('kettle', message.id, { kind: '997', name: '997_big.x12', stored });
    const file = await files.read('kettle', 'outbound', '997_big.x12');
    expect(file).toMatchObject({ id: stored.id, kind: '997', messageId: message.id, size: text.length });
    expect(file!.content.equals(text)).toBe(true);
    expect((await files.listByMessage(message.id)).map((f) => [f.name, f.removedAt === null])).toEqual([
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

  it('are what a translation of many sets answers, written whole or in parts alike', async () => {
    const raw = purchaseOrders(4_000);
    const message = await messages.record({
      partnerId: 'kettle',
      channel: 'http-edi',
      rawPayload: raw,
      contentType: X12_CONTENT_TYPE,
    });
    const interchanges = new InterchangeRepository(database.dataSource);
    const translate = new TranslateMessage(
      messages,
      new OperationRepository(database.dataSource),
      interchanges,
      new PartnerRepository(database.dataSource),
      new PartnerMappingRepository(database.dataSource),
      new RecordingQueues().asQueues(),
      outboundFolder(files),
      { batchThreshold: 1_000, batchSize: 1_000 },
      new MessagePayloads(files, messages),
    );
    expect(await translate.execute(message.id)).toBe('queued');

    const [ack] = (await files.listByMessage(message.id)).filter((f) => f.folder === 'outbound');
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
