import { rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import SftpClient from 'ssh2-sftp-client';
import { DataSource } from 'typeorm';
import { FILE_CHUNK_BYTES, SftpCredentialRepository } from '@dockbridge/partners';
import { DETAIL_PAYLOAD_BYTES, type MessageDetailView, type AsJson } from '@dockbridge/pipeline';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { Spine, startSpine } from './support/spine';

const MiB = 1024 * 1024;
const PASSWORD = 'large-upload-password-0123';

/** `sets` 850 sets in one interchange: about 150 bytes a set. */
function bigInterchange(sets: number): Buffer {
  const lines = [
    'ISA*00*          *00*          *ZZ*TESTWMS        *ZZ*DOCKBRIDGE     *260301*1200*U*00401*000000901*0*T*>~',
    'GS*PO*TESTWMS*DOCKBRIDGE*20260301*1200*1*X*004010~',
  ];
  for (let n = 1; n <= sets; n++) {
    const st = String(n).padStart(9, '0');
    lines.push(`ST*850*${st}~`, `BEG*00*SA*PO-${n}**20260301~`, 'PO1*1*10*EA***VP*SKU-1~', `SE*4*${st}~`);
  }
  lines.push(`GE*${sets}*1~`, 'IEA*1*000000901~');
  return Buffer.from(lines.join('\n'));
}

/**
 * An upload larger than a chunk over SFTP: stored once in chunks, its message pointing at it, the
 * payload read back for translation, shown in part in the detail and downloaded whole, and a replay
 * that resends the same stored file.
 */
describe('a large upload: stored once, in chunks, read back where it is needed', () => {
  let spine: Spine;
  let dir: string;
  let client: SftpClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'dockbridge-large-'));
    spine = await startSpine({
      'sftp.port': 0,
      'sftp.hostKeyPath': join(dir, 'host_key'),
      'sftp.generateHostKey': true,
      'sftp.maxFileBytes': 32 * MiB,
      'sftp.maxConcurrentUploads': 2,
    });
    await spine.app.get(SftpCredentialRepository).setPassword('test-wms', 'testwms', PASSWORD);
    client = new SftpClient();
    await client.connect({
      host: '127.0.0.1',
      port: spine.app.get(SftpServer).port!,
      username: 'testwms',
      password: PASSWORD,
      readyTimeout: 10_000,
    });
  }, 60_000);
  afterAll(async () => {
    await client?.end().catch(() => undefined);
    await spine?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps one copy, shows its beginning, serves all of it, and replays the same file', async () => {
    const bytes = bigInterchange(60_000);
    expect(bytes.length).toBeGreaterThan(5 * MiB);
    await client.put(bytes, '/inbound/big-850.edi');

    const dataSource = spine.app.get(DataSource);
    const [row] = await dataSource.query<{ id: string; raw_payload: string; metadata: { payloadFile: string } }[]>(
      `SELECT id, raw_payload, metadata FROM message WHERE metadata->>'fileName' = 'big-850.edi'`,
    );
    expect(row.raw_payload).toBe('');
    const [{ chunks, stored }] = await dataSource.query<{ chunks: string; stored: string }[]>(
      `SELECT count(*) AS chunks, sum(length(data)) AS stored FROM partner_file_chunk WHERE file_id = $1`,
      [row.metadata.payloadFile],
    );
    expect(Number(chunks)).toBe(Math.ceil(bytes.length / FILE_CHUNK_BYTES));
    expect(Number(stored)).toBe(bytes.length);
    // Translated from the stored file (the test partner has no EDI settings: rejected, saying so).
    await spine.waitForStatus(row.id, ['rejected']);
    expect((await spine.messages.findById(row.id))?.statusReason).toMatch(/has no EDI settings/);

    const detail = (await (
      await spine.call('GET', `/v1/admin/messages/${row.id}`, { auth: 'admin' })
    ).json()) as AsJson<MessageDetailView>;
    expect(detail.message).toMatchObject({ payloadBytes: bytes.length, payloadTruncated: true });
    expect(detail.message.rawPayload).toBe(bytes.subarray(0, DETAIL_PAYLOAD_BYTES).toString('utf8'));

    const download = await spine.call('GET', `/v1/admin/messages/${row.id}/payload`, { auth: 'admin' });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^application\/edi-x12/);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

    const replay = (await (
      await spine.call('POST', `/v1/admin/messages/${row.id}/replay`, { auth: 'admin', body: { mode: 'rerun' } })
    ).json()) as { messageId: string };
    await spine.waitForStatus(replay.messageId, ['rejected']);
    const replayed = (await spine.messages.findById(replay.messageId))!;
    expect(replayed.rawPayload).toBe('');
    expect(replayed.metadata.payloadFile).toBe(row.metadata.payloadFile);
    const [{ files }] = await dataSource.query<{ files: string }[]>(`SELECT count(*) AS files FROM partner_file`);
    expect(Number(files)).toBe(1); // the replay made no copy
  }, 120_000);

  it('refuses an upload beyond the concurrent limit at OPEN, saying why, and takes it once one ends', async () => {
    const sftp = (client as unknown as { sftp: SFTPWrapper }).sftp;
    const call = <T>(run: (done: (error: Error | null | undefined, value?: T) => void) => void) =>
      new Promise<T>((resolve, reject) => run((error, value) => (error ? reject(error) : resolve(value as T))));
    const first = await call<Buffer>((done) => sftp.open('/inbound/one.edi', 'w', done));
    const second = await call<Buffer>((done) => sftp.open('/inbound/two.edi', 'w', done));
    await expect(call<Buffer>((done) => sftp.open('/inbound/three.edi', 'w', done))).rejects.toThrow(
      /receiving 2 uploads at once, its limit \(sftp.maxConcurrentUploads\); try again in a moment/,
    );
    await call((done) => sftp.write(first, Buffer.from('x'), 0, 1, 0, done));
    await call((done) => sftp.close(first, done)); // received: the upload ended
    const third = await call<Buffer>((done) => sftp.open('/inbound/three.edi', 'w', done));
    await Promise.all([second, third].map((handle) => call((done) => sftp.close(handle, done)).catch(() => undefined)));
  });
});
