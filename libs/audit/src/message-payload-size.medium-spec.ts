import { DataSource } from 'typeorm';
import { startMediumDatabase } from '../../../test/support/medium';
import { MessageRepository } from './message.repository';

/** What translation reads of a message, asked before it is loaded (medium: real Postgres). */
describe('MessageRepository.payloadSize (medium: real Postgres)', () => {
  let database: { dataSource: DataSource; close(): Promise<void> };
  let messages: MessageRepository;

  beforeAll(async () => {
    database = await startMediumDatabase();
    messages = new MessageRepository(database.dataSource);
  }, 60_000);
  afterAll(() => database?.close());

  it('gives the bytes of a text payload, or of the stored file a message points to, and its JSON values', async () => {
    const text = JSON.stringify({ operations: [{ name: 'Müller' }] }); // ü is two bytes
    const json = await messages.record({
      partnerId: 'p',
      channel: 'api',
      rawPayload: text,
      contentType: 'application/json',
      metadata: { jsonValues: 5 },
    });
    const upload = await messages.record({
      partnerId: 'p',
      channel: 'sftp',
      rawPayload: '',
      contentType: 'application/edi-x12',
      metadata: { payloadFile: 'f-1', size: 104_857_600 },
    });

    expect(await messages.payloadSize(json.id)).toEqual({
      status: 'received',
      contentType: 'application/json',
      textBytes: Buffer.byteLength(text),
      fileBytes: null,
      jsonValues: 5,
    });
    expect(await messages.payloadSize(upload.id)).toEqual({
      status: 'received',
      contentType: 'application/edi-x12',
      textBytes: 0,
      fileBytes: 104_857_600,
      jsonValues: null,
    });
    expect(await messages.payloadSize('00000000-0000-4000-8000-000000000000')).toBeNull();
    expect(await messages.payloadSize('not-a-uuid')).toBeNull();
  });
});
