import { PlatformError } from '../http/platform-error';
import { Caller } from '../http/caller';
import { SandboxState } from '../state/sandbox-state';
import { SeedLayout } from '../state/seed';
import { BookingView, presentBooking, TaskView } from './booking-view';

/**
 * Body of `POST /api/v2/bookings`. The interface leaves `filter` open; the sandbox's filter is:
 *
 *   filter: {
 *     requestedFrom?: ISO 8601,   // requestedTime >= requestedFrom
 *     requestedTo?: ISO 8601,     // requestedTime <  requestedTo
 *     statusNames?: string[],     // status name is one of these
 *     locationId?: UUID,          // booking's location
 *     carrierId?: UUID            // booking's carrier
 *   }
 *
 * Every member is optional; an unknown member is a 400 naming it.
 */
export interface ExportRequest {
  layoutId: string;
  filter: ExportFilter;
  format: 'json' | 'csv';
  viewAs: 'bookings' | 'tasks';
}

export interface ExportFilter {
  requestedFrom?: string;
  requestedTo?: string;
  statusNames?: string[];
  locationId?: string;
  carrierId?: string;
}

/** A row source: the booking view, in the tasks view narrowed to one task (`task`, and `loads` of that task). */
type RowSource = BookingView & { task?: TaskView };
export type Row = Record<string, string | number>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILTER_MEMBERS = ['requestedFrom', 'requestedTo', 'statusNames', 'locationId', 'carrierId'];

export function parseExportRequest(body: unknown): ExportRequest {
  const problems: string[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw PlatformError.badRequest('Invalid export request', ['body: expected a JSON object with layoutId']);
  }
  const { layoutId, filter = {}, format = 'json', viewAs = 'bookings' } = body as Record<string, unknown>;
  if (typeof layoutId !== 'string' || !UUID.test(layoutId)) {
    problems.push('layoutId: required, the UUID of a layout');
  }
  if (format !== 'json' && format !== 'csv') {
    problems.push('format: must be json or csv');
  }
  if (viewAs !== 'bookings' && viewAs !== 'tasks') {
    problems.push('viewAs: must be bookings or tasks');
  }
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    problems.push('filter: must be an object');
  } else {
    const f = filter as Record<string, unknown>;
    for (const key of Object.keys(f)) {
      if (!FILTER_MEMBERS.includes(key)) {
        problems.push(`filter.${key}: unknown member (known: ${FILTER_MEMBERS.join(', ')})`);
      }
    }
    for (const key of ['requestedFrom', 'requestedTo']) {
      if (f[key] !== undefined && (typeof f[key] !== 'string' || Number.isNaN(Date.parse(f[key])))) {
        problems.push(`filter.${key}: must be an ISO 8601 timestamp`);
      }
    }
    for (const key of ['locationId', 'carrierId']) {
      if (f[key] !== undefined && (typeof f[key] !== 'string' || !UUID.test(f[key]))) {
        problems.push(`filter.${key}: must be a UUID`);
      }
    }
    if (
      f.statusNames !== undefined &&
      (!Array.isArray(f.statusNames) || f.statusNames.some((s) => typeof s !== 'string'))
    ) {
      problems.push('filter.statusNames: must be an array of strings');
    }
  }
  if (problems.length) {
    throw PlatformError.badRequest('Invalid export request', problems);
  }
  return {
    layoutId: layoutId as string,
    filter: filter as ExportFilter,
    format: format as ExportRequest['format'],
    viewAs: viewAs as ExportRequest['viewAs'],
  };
}

/** Bookings at the caller's organisations (as location or carrier) matching the filter, by requestedTime ascending. */
export function exportSources(state: SandboxState, caller: Caller, request: ExportRequest): RowSource[] {
  const { filter } = request;
  const from = filter.requestedFrom ? Date.parse(filter.requestedFrom) : -Infinity;
  const to = filter.requestedTo ? Date.parse(filter.requestedTo) : Infinity;
  const bookings = [...state.bookings.values()]
    .filter((b) => caller.actsFor(b.locationId) || caller.actsFor(b.carrierId))
    .filter((b) => {
      const time = Date.parse(b.requestedTime);
      return (
        time >= from &&
        time < to &&
        (!filter.locationId || b.locationId === filter.locationId) &&
        (!filter.carrierId || b.carrierId === filter.carrierId)
      );
    })
    .map((b) => presentBooking(state, b))
    .filter((b) => !filter.statusNames || filter.statusNames.includes(b.status.name))
    .sort(
      (a, b) => Date.parse(a.requestedTime) - Date.parse(b.requestedTime) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  if (request.viewAs === 'bookings') {
    return bookings;
  }
  return bookings.flatMap((b) => b.tasks.map((task) => ({ ...b, task, loads: task.loads })));
}

/** The values at a dotted path; arrays along the way are flattened. */
export function valuesAt(source: unknown, path: string): unknown[] {
  let current: unknown[] = [source];
  for (const segment of path.split('.')) {
    current = current
      .flatMap((value) => (Array.isArray(value) ? value : [value]))
      .map((value) =>
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[segment] : undefined,
      );
  }
  return current
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .filter((value) => value !== null && value !== undefined);
}

/** One row keyed by the layout's column names, in column order: numeric columns sum, others join with ", ". */
export function toRow(layout: SeedLayout, source: RowSource): Row {
  const row: Row = {};
  for (const column of layout.columns) {
    const values = valuesAt(source, column.field);
    row[column.name] = column.numeric
      ? values.reduce<number>((sum, value) => sum + (Number(value) || 0), 0)
      : values.map((value) => (typeof value === 'object' ? JSON.stringify(value) : String(value))).join(', ');
  }
  return row;
}

/** RFC 4180: CRLF line ends; a field with a comma, quote or line break is quoted, quotes doubled. */
export function toCsv(layout: SeedLayout, rows: Row[]): string {
  const cell = (value: string | number) => {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  const lines = [
    layout.columns.map((c) => cell(c.name)),
    ...rows.map((row) => layout.columns.map((c) => cell(row[c.name]))),
  ];
  return lines.map((line) => line.join(',')).join('\r\n') + '\r\n';
}
