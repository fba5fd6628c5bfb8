import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PartnerRepository } from '@dockbridge/partners';
import { DEMO } from '../support/sandbox';
import { ADMIN_TOKEN, Spine, startSpine } from '../support/spine';
import { buildConsole, CHROMIUM_ARGS, CHROMIUM_PATH, eventually } from './browser';

/*
 * The built console in headless Chromium against a gateway on loopback (Postgres, Redis, the sandbox):
 * what a support engineer does on a bad day, page by page. Each page's screenshot is written to
 * test/console/screenshots/ (CONSOLE_DOCS=1 also copies them to docs/console/ for docs/console.md).
 */
const SHOTS = join(__dirname, 'screenshots');
const DOCS = join(__dirname, '../../docs/console');
const EDI_PARTNER = 'kettle-edi';
const BAD = readFileSync(join(__dirname, '../fixtures/edi/kettle-850-bad-quantity.edi'), 'utf8');

describe('operator console', () => {
  let spine: Spine;
  let browser: Browser;
  let page: Page;
  let ediKey: string;
  const failed: Record<string, string> = {};

  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await spine.call(method, path, { auth: 'admin', body });
    expect(response.status).toBeLessThan(300);
    return response.json();
  };
  const upload = async (fileName: string, text: string) => {
    const response = await fetch(`${spine.url}/v1/edi?fileName=${fileName}`, {
      method: 'POST',
      headers: { 'x-api-key': ediKey, 'content-type': 'application/edi-x12' },
      body: text,
    });
    const { messageId } = (await response.json()) as { messageId: string };
    expect(await spine.waitForStatus(messageId, ['failed', 'delivered', 'rejected', 'partially_failed'])).toBe(
      'failed',
    );
    return messageId;
  };
  /** A message of one document upsert, sent as the test partner: its id. */
  const upsert = async (documentId: string): Promise<string> => {
    const response = await spine.call('POST', '/v1/messages', {
      body: {
        operations: [
          {
            kind: 'document.upsert',
            organisationId: DEMO.mainDc,
            document: { id: documentId, direction: 'Inbound', carrier: { coreName: 'SCAC', coreId: 'FFRT' } },
          },
        ],
      },
    });
    return ((await response.json()) as { messageId: string }).messageId;
  };
  const shoot = async (name: string, of: Page = page) => {
    await of.screenshot({ path: join(SHOTS, `${name}.png`) });
    if (process.env.CONSOLE_DOCS) {
      copyFileSync(join(SHOTS, `${name}.png`), join(DOCS, `${name}.png`));
    }
  };
  /** A fresh tab signed in with `token` (session storage is per tab). */
  const signIn = async (token: string) => {
    await page?.close();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(15_000);
    await page.goto(`${spine.url}/console/`);
    await page.getByLabel('Operator token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('me-role').waitFor();
  };
  const issueToken = async (name: string, role: string) =>
    ((await admin('POST', '/v1/admin/operators', { name, role })) as { token: string }).token;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    if (process.env.CONSOLE_DOCS) {
      mkdirSync(DOCS, { recursive: true });
    }
    buildConsole();
    [spine, browser] = await Promise.all([
      startSpine(),
      chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS }),
    ]);
    const partners = spine.app.get(PartnerRepository);
    await partners.upsert(
      {
        id: EDI_PARTNER,
        name: 'Kettle Foods (EDI)',
        locationOrganisationId: DEMO.mainDc,
        settings: { edi: { senderIds: ['KETTLE'], coreName: 'ACME', locationCodes: ['DC01'] } },
      },
      'api',
    );
    ediKey = (await partners.issueApiKey(EDI_PARTNER, { label: 'console tests' })).key;
    failed.single = await upload('kettle-bad-1.edi', BAD);
    failed.bulk = await upload('kettle-bad-2.edi', BAD.replaceAll('000000201', '000000202'));
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    // A connection of the closed browser's stays open on the server until its 60 s timeout: end them all.
    (spine?.app.getHttpServer() as import('node:http').Server | undefined)?.closeAllConnections();
    await spine?.close();
  });

  it('serves the console at /console, its page public and its assets cached for good', async () => {
    const index = await fetch(`${spine.url}/console/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    expect(index.headers.get('content-security-policy')).toContain("default-src 'self'");
    const asset = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    expect(asset).toBeDefined();
    expect((await fetch(`${spine.url}${asset}`)).headers.get('cache-control')).toContain('immutable');
  });

  it('signs a viewer in: messages and their details, and no replay', async () => {
    await browser.newPage().then(async (first) => {
      await first.setViewportSize({ width: 1280, height: 860 });
      await first.goto(`${spine.url}/console/`);
      await first.getByLabel('Operator token').waitFor();
      await shoot('sign-in', first);
      await first.close();
    });
    await signIn(await issueToken('vera', 'viewer'));
    expect(await page.getByTestId('me-role').textContent()).toBe('viewer');
    await page.goto(`${spine.url}/console/#/messages/${failed.single}`);
    await page.getByTestId('x12').waitFor();
    expect(await page.getByRole('button', { name: /^Replay/ }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Operators' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Bulk replay' }).click();
    await page.getByText('Replays need the operator role.').waitFor();
    expect(await page.getByRole('button', { name: 'Count (dry run)' }).count()).toBe(0);
  });

  it('finds a failed message by file name as an operator, with the X12 problem at its segment and the attempts', async () => {
    await signIn(await issueToken('olga', 'operator'));
    await page.getByRole('link', { name: 'Messages' }).click();
    await page.getByLabel('File name').fill('kettle-bad-1.edi');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/fileName=kettle-bad-1\.edi/);
    const rows = page.getByTestId('message-row');
    await eventually(async () => expect(await rows.count()).toBe(1));
    expect(await rows.first().textContent()).toContain('failed');
    await page.getByTestId('count-failed').getByText('1').waitFor();
    await shoot('messages');
    await rows.first().getByRole('link').click();
    const problem = page.getByTestId('x12-problem').first();
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/PO1\*2\*three/);
    expect(await problem.locator('.bad-element').textContent()).toBe('three');
    expect(await page.getByTestId('operation').first().textContent()).toMatch(/failed.*PO102/s);
    await shoot('message');
  });

  it('edits the payload and replays it, and the replay is delivered', async () => {
    await page.getByRole('button', { name: 'Edit and replay…' }).click();
    const editor = page.getByLabel('Corrected payload');
    await editor.fill((await editor.inputValue()).replace('PO1*2*three*', 'PO1*2*3*'));
    await page.getByLabel('Reason (recorded)').fill('quantity typed as a word');
    await page.getByRole('button', { name: 'Replay the edited payload' }).click();
    await page.getByRole('status').getByRole('link').click();
    await page.getByText('delivered', { exact: true }).first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('original-link').count()).toBe(1);
    await page.getByTestId('operation').first().locator('summary').first().click();
    await page.getByTestId('attempt').getByText('success').first().waitFor();
    await shoot('replay');
  });

  it('checks an edited JSON payload before sending it', async () => {
    const messageId = await upsert('PO-CONSOLE-1');
    await page.goto(`${spine.url}/console/#/messages/${messageId}`);
    await page.getByTestId('json').waitFor();
    await page.getByRole('button', { name: 'Edit and replay…' }).click();
    await page.getByLabel('Corrected payload (JSON)').fill('{"operations": [');
    expect(await page.getByRole('alert').textContent()).toMatch(/JSON|Unexpected|line/);
    expect(await page.getByRole('button', { name: 'Replay the edited payload' }).isDisabled()).toBe(true);
  });

  it('ends a delivery that keeps failing, with the reason, as an operator', async () => {
    const faults = (rules: unknown[]) =>
      spine.sandbox.call('POST', '/__sandbox/faults', { token: null, body: { rules } });
    await faults([{ method: 'PUT', path: '/api/v2/organisations/*/documents/PO-CONSOLE-END', status: 502, rate: 1 }]);
    try {
      const messageId = await upsert('PO-CONSOLE-END');
      await page.goto(`${spine.url}/console/#/messages/${messageId}`);
      await page.getByTestId('attempt').first().waitFor({ state: 'attached', timeout: 30_000 });
      await page.getByLabel('Why end it (recorded)').fill('the carrier withdrew the order');
      // A retry under way at that moment is refused by the gateway (its reason shown): click again.
      await eventually(async () => {
        await page.getByRole('button', { name: 'End delivery' }).click();
        await page.getByText('Ended 1 operation(s): the message is failed.').waitFor({ timeout: 2_000 });
      });
      await page.getByText('ended by operator:olga: the carrier withdrew the order').first().waitFor();
      expect(await page.getByRole('button', { name: 'End delivery' }).isDisabled()).toBe(true);
      await shoot('end-delivery');
    } finally {
      await faults([]);
    }
  });

  it('bulk-replays by filter: the dry-run count first, then the run to its end', async () => {
    await page.goto(`${spine.url}/console/#/replays?fileName=kettle-bad-2.edi`);
    await page.getByRole('button', { name: 'Count (dry run)' }).click();
    expect(await page.getByTestId('dry-run-count').textContent()).toBe('1');
    await page.getByRole('button', { name: 'Replay 1 messages' }).click();
    await page.getByTestId('run').getByText('completed').waitFor({ timeout: 30_000 });
    await shoot('bulk-replay');
  });

  it('creates a partner as an admin, with an SFTP user and a mapping run on a sample', async () => {
    await signIn(ADMIN_TOKEN);
    await page.getByRole('link', { name: 'Partners' }).click();
    await page.getByRole('link', { name: 'New partner' }).click();
    await page.getByLabel('Id (slug)').fill('harbour-tms');
    await page.getByLabel('Name').fill('Harbour TMS');
    await page.getByLabel('Location organisation (uuid)').fill(DEMO.mainDc);
    await page.getByRole('button', { name: 'Create partner' }).click();
    await page.waitForURL(/#\/partners\/harbour-tms$/);
    await page.getByLabel('User name').fill('harbour');
    await page.getByLabel('Password (12 characters or more)').fill('harbour sftp password 1');
    await page.getByRole('button', { name: 'Add SFTP user' }).click();
    await page.getByTestId('sftp-users').getByText('harbour').waitFor();
    await page.getByLabel('Sample webhook payload (JSON)').fill('{"order": {"id": "PO-77", "carrier": "FFRT"}}');
    await page.getByRole('button', { name: 'Run on the sample' }).click();
    expect(await page.getByTestId('mapping-result').textContent()).toContain('PO-77');
    await shoot('mapping');
    await page.getByLabel(/^Expression/).fill('{"operations": [ order.id ');
    await page.getByRole('button', { name: 'Run on the sample' }).click();
    expect(await page.getByTestId('mapping-error').textContent()).toMatch(/line 1, column/);
    await shoot('partner');
  });

  it('previews an EDI file as its partner would be told', async () => {
    await page.getByRole('link', { name: 'EDI preview' }).click();
    await page.getByLabel('Partner', { exact: true }).selectOption(EDI_PARTNER);
    await page.getByLabel(/Drop an X12 file here/).setInputFiles({
      name: 'kettle-bad.edi',
      mimeType: 'application/edi-x12',
      buffer: Buffer.from(BAD),
    });
    expect(await page.getByTestId('preview-summary').textContent()).toContain('1 rejected');
    await page.getByTestId('x12-problem').first().waitFor();
    await shoot('edi-preview');
  });

  it('draws the dashboard as charts, and lists who did what', async () => {
    await page.getByRole('link', { name: 'Dashboard' }).click();
    await eventually(async () =>
      expect(await page.locator('[data-testid=chart] svg[role=img]').count()).toBeGreaterThanOrEqual(5),
    );
    await page.locator('.chart polyline').first().waitFor({ state: 'attached' });
    await shoot('dashboard');
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByTestId('activity-row').first().waitFor();
    expect(await page.getByTestId('activity-row').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/olga.*replay/i)]),
    );
    await shoot('activity');
  });
});
