import { UnrecoverableError } from 'bullmq';
import type { MessageRepository } from '@dockbridge/audit';
import type { PartnerFileRepository, PartnerRepository, WebhookSecretRepository } from '@dockbridge/partners';
import { MAX_PAGE_SIZE, type PlatformAccounts, type PlatformClient } from '@dockbridge/platform';
import { MAX_EXPORT_ROWS, RunExport } from './run-export';

/** RunExport over fakes: a platform whose export never ends (every page full), recording what it was asked. */
function exporting(format: 'csv' | 'json') {
  const asked: number[] = [];
  const recorded: unknown[] = [];
  const exportBookings = async (_request: unknown, page: { skip: number; count: number }) => {
    asked.push(page.skip);
    const ids = Array.from({ length: page.count }, (_, i) => `B${page.skip + i}`);
    return format === 'csv' ? ['Booking', ...ids].join('\r\n') + '\r\n' : ids.map((id) => ({ Booking: id }));
  };
  // The client's own paging, as PlatformClient does it: up to the page that goes past maxRows.
  const exportAllBookings = async (request: object, pageSize: number, maxRows: number) => {
    const rows: unknown[] = [];
    for (let skip = 0; rows.length <= maxRows; skip += pageSize) {
      rows.push(...((await exportBookings(request, { skip, count: pageSize })) as unknown[]));
    }
    return rows;
  };
  const client = { exportBookings, exportAllBookings };
  const partner = {
    id: 'harbour-tms',
    enabled: true,
    locationOrganisationId: 'org-1',
    settings: { exports: [{ id: 'all', everyMs: 3_600_000, layoutId: 'L1', format }] },
  };
  const run = new RunExport(
    { findById: async () => partner } as unknown as PartnerRepository,
    { record: async (m: unknown) => void recorded.push(m) } as unknown as MessageRepository,
    {} as PartnerFileRepository,
    {} as WebhookSecretRepository,
    { clientFor: () => client as unknown as PlatformClient } as unknown as PlatformAccounts,
  );
  return { run, asked, recorded };
}

describe('RunExport: an export larger than a run holds', () => {
  it.each(['csv', 'json'] as const)(
    'fails a %s export for good past its rows, saying to narrow the filter, without recording a file',
    async (format) => {
      const { run, asked, recorded } = exporting(format);
      const failure = await run.execute({ partnerId: 'harbour-tms', exportId: 'all' }).catch((error: Error) => error);
      expect(failure).toBeInstanceOf(UnrecoverableError);
      expect((failure as Error).message).toBe(
        `the export matches more than ${MAX_EXPORT_ROWS} bookings, more than one run holds: narrow its filter (settings.exports[].filter)`,
      );
      // It stopped at the page that went past: no more was asked of the platform than that.
      expect(asked).toHaveLength(MAX_EXPORT_ROWS / MAX_PAGE_SIZE + 1);
      expect(recorded).toEqual([]);
    },
  );
});
