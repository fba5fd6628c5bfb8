import { randomInt, randomUUID } from 'node:crypto';
import type { Direction, Document, DocumentJob, DocumentJobResultEntry, Load } from '@dockbridge/platform';
import { Seed, SeedArea, SeedLayout, SeedOrganisation, SeedStatus, SeedToken, SeedVehicle } from './seed';

export type Organisation = Required<Pick<SeedOrganisation, 'id' | 'name' | 'kind'>> & {
  coreName: string | null;
  coreId: string | null;
  documentsEnabled: boolean;
  capacity: number;
};

export interface StoredDocument extends Document {
  /** Bookings that used this document (settings.maxUses). */
  uses: number;
}

export interface Task {
  id: string;
  direction: Direction;
  senderId: string | null;
  receiverId: string | null;
  documentId: string | null;
  loads: Load[];
  bookingOptions: string[];
}

export interface Booking {
  id: string;
  pin: string | null;
  locationId: string;
  carrierId: string;
  statusId: string;
  requestedTime: string;
  bookedTime: string | null;
  duration: number;
  areaId: string | null;
  vehicleId: string | null;
  reassignedFrom: string | null;
  tasks: Task[];
  headerLoads: Load[];
  /** Field values supplied so far, by key (or field id). */
  fields: Record<string, string>;
  createdBy: string;
  createdAt: string;
}

export interface Job extends DocumentJob {
  kind: 'upsert' | 'delete';
  organisationId: string;
  input: unknown[];
  options: { enableBaseOrgs: boolean; selfCoreId?: string };
  results: DocumentJobResultEntry[];
}

/** The default booking workflow of a location whose seed lists no statuses. */
const DEFAULT_WORKFLOW: Omit<SeedStatus, 'id' | 'locationId'>[] = [
  { name: 'Submitted', description: 'Awaiting approval', next: ['Approved', 'Rejected'], carrierAvailable: true },
  { name: 'Approved', description: 'Approved by the booking engine', next: ['Arrived'], carrierAvailable: true },
  { name: 'Arrived', description: 'Vehicle on site', next: ['Completed'], carrierAvailable: true },
  { name: 'Completed', description: 'Work done', next: [], carrierAvailable: false },
  { name: 'Rejected', description: 'Refused by the location', next: [], carrierAvailable: false },
  { name: 'Cancelled', description: 'Cancelled', next: [], exception: true, carrierAvailable: true },
];

const ID_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const block = () => Array.from({ length: 4 }, () => ID_ALPHABET[randomInt(ID_ALPHABET.length)]).join('');

/**
 * Everything the sandbox knows, in memory: built from the seed, mutated by the API, rebuilt by reset.
 * Services own the rules; this class owns the data and the lookups.
 */
export class SandboxState {
  organisations = new Map<string, Organisation>();
  connections = new Map<string, Set<string>>();
  tokens = new Map<string, SeedToken>();
  statuses = new Map<string, SeedStatus[]>();
  vehicles = new Map<string, SeedVehicle>();
  areas = new Map<string, SeedArea>();
  layouts = new Map<string, SeedLayout>();
  bookings = new Map<string, Booking>();
  documents = new Map<string, Map<string, StoredDocument>>();
  /** Document writes carried out per location since the last reset. */
  documentWrites = new Map<string, number>();
  jobs = new Map<string, Job>();

  constructor(private readonly seed: Seed) {
    this.reset();
  }

  reset(): void {
    const seed = structuredClone(this.seed);
    this.organisations = new Map(
      seed.organisations.map((o) => [
        o.id,
        {
          id: o.id,
          name: o.name,
          kind: o.kind,
          coreName: o.coreName ?? null,
          coreId: o.coreId ?? null,
          documentsEnabled: o.documentsEnabled ?? true,
          capacity: o.capacity ?? 1,
        },
      ]),
    );
    this.connections = new Map();
    for (const c of seed.connections) {
      this.connect(c.locationId, c.organisationId);
    }
    this.tokens = new Map(seed.tokens.map((t) => [t.token, t]));
    this.statuses = new Map();
    for (const s of seed.statuses) {
      this.statusesAt(s.locationId).push(s);
    }
    for (const org of this.organisations.values()) {
      if (org.kind === 'location' && !this.statuses.has(org.id)) {
        this.statuses.set(
          org.id,
          DEFAULT_WORKFLOW.map((s) => ({ ...s, id: randomUUID(), locationId: org.id })),
        );
      }
    }
    this.vehicles = new Map(seed.vehicles.map((v) => [v.id, v]));
    this.areas = new Map((seed.areas ?? []).map((a) => [a.id, a]));
    this.layouts = new Map(seed.layouts.map((l) => [l.id, l]));
    this.bookings = new Map((seed.bookings as Booking[]).map((b) => [b.id, b]));
    this.documents = new Map();
    this.documentWrites = new Map();
    this.jobs = new Map();
  }

  /** Counts a document write (create, update, delete) carried out at a location, for stats: writes whose answer was lost count too. */
  countDocumentWrite(locationId: string): void {
    this.documentWrites.set(locationId, (this.documentWrites.get(locationId) ?? 0) + 1);
  }

  connect(locationId: string, organisationId: string): void {
    const set = this.connections.get(locationId) ?? new Set<string>();
    set.add(organisationId);
    this.connections.set(locationId, set);
  }

  isConnected(locationId: string, organisationId: string): boolean {
    return locationId === organisationId || (this.connections.get(locationId)?.has(organisationId) ?? false);
  }

  connectedOrganisations(locationId: string): Organisation[] {
    return [...(this.connections.get(locationId) ?? [])]
      .map((id) => this.organisations.get(id))
      .filter((o): o is Organisation => !!o);
  }

  statusesAt(locationId: string): SeedStatus[] {
    let list = this.statuses.get(locationId);
    if (!list) {
      this.statuses.set(locationId, (list = []));
    }
    return list;
  }

  documentsAt(locationId: string): Map<string, StoredDocument> {
    let docs = this.documents.get(locationId);
    if (!docs) {
      this.documents.set(locationId, (docs = new Map()));
    }
    return docs;
  }

  newBookingId(): string {
    let id: string;
    do {
      id = `MDB-26-${block()}-${block()}`;
    } while (this.bookings.has(id));
    return id;
  }

  newTaskId(): string {
    return `MDT-26-${block()}-${block()}`;
  }
}
