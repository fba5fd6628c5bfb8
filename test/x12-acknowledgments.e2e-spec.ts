import SftpClient from 'ssh2-sftp-client';
import {
  PartnerFileRepository,
  PartnerRepository,
  SftpCredentialRepository,
  sshFingerprint,
} from '@dockbridge/partners';
import { parseX12 } from '@dockbridge/x12';
import { SftpServer } from '../apps/gateway/src/sftp/sftp.server';
import { DEMO } from './support/sandbox';
import { Spine, startSpine } from './support/spine';

/**
 * Acknowledgments as trading partners fetch them over SFTP (a real client against the gateway's
 * server): answered from the id the partner addressed, and a 999 for a 5010 partner who asks for one.
 */
const FINAL = ['delivered', 'partially_failed', 'failed', 'rejected', 'duplicate'];
const PASSWORD = 'x12 acknowledgments password';

/** An 850 from `sender` (qualifier `qualifier`) to our 5551234567 under the same qualifier. */
function purchaseOrder(e: { qualifier: string; sender: string; version: '00401' | '00501'; quantity: string }): string {
  const five = e.version === '00501';
  return [
    `ISA*00*          *00*          *${e.qualifier}*${e.sender.padEnd(15)}*${e.qualifier}*5551234567     *260301*1200*${five ? '^' : 'U'}*${e.version}*000000301*0*T*>`,
    `GS*PO*${e.sender}*5551234567*20260301*1200*301*X*${e.version}0`,
    'ST*850*0001',
    'BEG*00*SA*PO-301**20260301',
    'N1*ST*Main DC*92*DC01',
    'N1*SF*Kettle*92*SUP-KETTLE',
    `PO1*1*${e.quantity}*EA***VP*SKU-1`,
    'SE*6*0001',
    'GE*1*301',
    'IEA*1*000000301',
  ]
    .map((s) => `${s}~\n`)
    .join('');
}

describe('X12 acknowledgments over SFTP', () => {
  let spine: Spine;
  let files: PartnerFileRepository;
  const clients: SftpClient[] = [];

  const login = async (username: string): Promise<SftpClient> => {
    const server = spine.app.get(SftpServer);
    const client = new SftpClient();
    clients.push(client);
    await client.connect({
      host: '127.0.0.1',
      port: server.port!,
      username,
      password: PASSWORD,
      hostVerifier: (key: Buffer) => sshFingerprint(key) === server.hostKeyFingerprint,
    });
    return client;
  };

  /** Uploads `text`, waits for its message to settle, and fetches its acknowledgment over SFTP. */
  const roundTrip = async (partnerId: string, username: string, name: string, text: string) => {
    const client = await login(username);
    await client.put(Buffer.from(text, 'utf8'), `/inbound/${name}`);
    const upload = (await files.list(partnerId, 'inbound')).find((f) => f.name === name);
    expect(upload?.messageId).toBeTruthy();
    await spine.waitForStatus(upload!.messageId!, FINAL, 20_000);
    const acks = (await files.list(partnerId, 'outbound')).filter((f) => f.messageId === upload!.messageId);
    expect(acks).toHaveLength(1);
    const content = ((await client.get(`/outbound/${acks[0].name}`)) as Buffer).toString('utf8');
    return { kind: acks[0].kind, name: acks[0].name, content };
  };

  beforeAll(async () => {
    spine = await startSpine();
    const partners = spine.app.get(PartnerRepository);
    const credentials = spine.app.get(SftpCredentialRepository);
    const edi = { coreName: 'ACME', locationCodes: ['DC01'] };
    await partners.upsert(
      {
        id: 'duns-carrier',
        name: 'A partner addressing us by DUNS',
        locationOrganisationId: DEMO.mainDc,
        settings: { edi: { ...edi, senderIds: ['925133417'] } },
      },
      'api',
    );
    await partners.upsert(
      {
        id: 'retail-5010',
        name: 'A 5010 partner asking for 999s',
        locationOrganisationId: DEMO.mainDc,
        settings: { edi: { ...edi, senderIds: ['RETAIL5010'], acknowledgment: '999' } },
      },
      'api',
    );
    await credentials.setPassword('duns-carrier', 'dunscarrier', PASSWORD);
    await credentials.setPassword('retail-5010', 'retail5010', PASSWORD);
    files = spine.app.get(PartnerFileRepository);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await spine?.close();
  });

  it('answers a partner that addressed us with qualifier 01 from 01, GS02/GS03 swapped', async () => {
    const text = purchaseOrder({ qualifier: '01', sender: '925133417', version: '00401', quantity: '10' });
    const ack = await roundTrip('duns-carrier', 'dunscarrier', 'po-301.edi', text);
    expect(ack.kind).toBe('997');
    const [received] = parseX12(ack.content).interchanges;
    expect(received.fields).toMatchObject({
      senderQualifier: '01',
      senderId: '5551234567     ',
      receiverQualifier: '01',
      receiverId: '925133417      ',
    });
    expect(received.groups[0]).toMatchObject({
      functionalId: 'FA',
      senderCode: '5551234567',
      receiverCode: '925133417',
    });
    expect(ack.content).toContain('AK5*A~');
  });

  it('writes a 999 with IK3/IK4/IK5 for a 5010 partner set to 999', async () => {
    const text = purchaseOrder({ qualifier: 'ZZ', sender: 'RETAIL5010', version: '00501', quantity: 'three' });
    const ack = await roundTrip('retail-5010', 'retail5010', 'po-302.edi', text);
    expect(ack.kind).toBe('999');
    expect(ack.name).toMatch(/^999_000000301_/);
    const doc = parseX12(ack.content);
    expect(doc.problems).toEqual([]);
    expect(doc.interchanges[0].fields).toMatchObject({ version: '00501', senderQualifier: 'ZZ' });
    const set = doc.interchanges[0].groups[0].transactionSets[0];
    expect(set.segments.map((s) => [s.tag, ...s.elements].join('*'))).toEqual([
      'ST*999*0001*005010X231A1',
      'AK1*PO*301*005010',
      'AK2*850*0001',
      'IK3*PO1*5**8',
      'IK4*2**6*three',
      'IK5*R*5',
      'AK9*R*1*1*0',
      'SE*8*0001',
    ]);
  });
});
