import { readFileSync } from 'node:fs';

/** The sandbox's seed file: the only way its state is provisioned (docs/sandbox.md). */
export type OrganisationKind = 'location' | 'carrier' | 'offsite';

export const PERMISSIONS = [
  'ViewLocationBookings',
  'ViewCarrierBookings',
  'ParticipateCarrierBookings',
  'ParticipateLocationBookings',
  'ViewDocuments',
  'ManageDocuments',
  'CreateBookings',
  'ManageVehicles',
  'ExportBookings',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export interface SeedOrganisation {
  id: string;
  name: string;
  kind: OrganisationKind;
  coreName?: string | null;
  coreId?: string | null;
  documentsEnabled?: boolean;
  /** Approved bookings that may overlap at a location (booking engine); default 1. */
  capacity?: number;
}

export interface SeedToken {
  token: string;
  organisationIds: string[];
  permissions: Permission[];
  /** Optional ISO 8601 expiry: an expired token answers 401. */
  expiresAt?: string;
}

export interface SeedStatus {
  id: string;
  locationId: string;
  name: string;
  description?: string;
  /** Names of the statuses that may follow this one. */
  next: string[];
  exception?: boolean;
  carrierAvailable?: boolean;
  /** Field keys that must be supplied (now or earlier) to move into this status. */
  requiredFields?: string[];
}

export interface SeedVehicle {
  id: string;
  organisationId: string;
  name: string;
  registration?: string;
  type?: string;
}

export interface SeedArea {
  id: string;
  locationId: string;
  name: string;
}

export interface SeedLayout {
  id: string;
  name: string;
  columns: { name: string; field: string; numeric?: boolean }[];
}

export interface Seed {
  organisations: SeedOrganisation[];
  connections: { locationId: string; organisationId: string }[];
  tokens: SeedToken[];
  statuses: SeedStatus[];
  vehicles: SeedVehicle[];
  areas?: SeedArea[];
  layouts: SeedLayout[];
  /** Bookings present at start, in the sandbox's internal record shape (locationId, carrierId, statusId, ...); rarely needed. */
  bookings: unknown[];
}

export class SeedError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks the references inside a seed so a typo fails at start, naming the entry. */
export function checkSeed(seed: Seed): Seed {
  const problems: string[] = [];
  const arrays = ['organisations', 'connections', 'tokens', 'statuses', 'vehicles', 'layouts'] as const;
  for (const key of arrays) {
    if (!Array.isArray(seed[key])) {
      problems.push(`${key} must be an array`);
    }
  }
  if (problems.length) {
    throw new SeedError(problems.join('; '));
  }
  const orgs = new Map(seed.organisations.map((o) => [o.id, o]));
  seed.organisations.forEach((o, i) => {
    if (!UUID.test(o.id)) {
      problems.push(`organisations[${i}].id must be a UUID`);
    }
    if (!['location', 'carrier', 'offsite'].includes(o.kind)) {
      problems.push(`organisations[${i}].kind must be location, carrier or offsite`);
    }
  });
  const isLocation = (id: string) => orgs.get(id)?.kind === 'location';
  seed.connections.forEach((c, i) => {
    if (!isLocation(c.locationId)) {
      problems.push(`connections[${i}].locationId is not a location organisation`);
    }
    if (!orgs.has(c.organisationId)) {
      problems.push(`connections[${i}].organisationId is not an organisation`);
    }
  });
  seed.tokens.forEach((t, i) => {
    if (typeof t.token !== 'string' || t.token === '') {
      problems.push(`tokens[${i}].token must be a non-empty string`);
    }
    if (!Array.isArray(t.organisationIds) || !Array.isArray(t.permissions)) {
      problems.push(`tokens[${i}] needs organisationIds and permissions arrays`);
      return;
    }
    if (t.expiresAt !== undefined && Number.isNaN(Date.parse(t.expiresAt))) {
      problems.push(`tokens[${i}].expiresAt must be an ISO 8601 timestamp`);
    }
    t.organisationIds.forEach(
      (id) => !orgs.has(id) && problems.push(`tokens[${i}].organisationIds: ${id} is not an organisation`),
    );
    t.permissions.forEach(
      (p) => !PERMISSIONS.includes(p) && problems.push(`tokens[${i}].permissions: unknown permission ${p}`),
    );
  });
  seed.statuses.forEach((s, i) => {
    if (!isLocation(s.locationId)) {
      problems.push(`statuses[${i}].locationId is not a location organisation`);
    }
    const names = new Set(seed.statuses.filter((x) => x.locationId === s.locationId).map((x) => x.name));
    s.next.forEach((n) => !names.has(n) && problems.push(`statuses[${i}].next: no status named ${n} at its location`));
  });
  seed.vehicles.forEach(
    (v, i) => !orgs.has(v.organisationId) && problems.push(`vehicles[${i}].organisationId is not an organisation`),
  );
  (seed.areas ?? []).forEach(
    (a, i) => !isLocation(a.locationId) && problems.push(`areas[${i}].locationId is not a location organisation`),
  );
  if (problems.length) {
    throw new SeedError(`Invalid sandbox seed: ${problems.join('; ')}`);
  }
  return seed;
}

export function readSeed(path: string): Seed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SeedError(`Cannot read sandbox seed ${path}: ${(error as Error).message}`);
  }
  const seed = parsed as Partial<Seed>;
  return checkSeed({
    areas: [],
    bookings: [],
    statuses: [],
    vehicles: [],
    layouts: [],
    connections: [],
    tokens: [],
    organisations: [],
    ...seed,
  });
}
