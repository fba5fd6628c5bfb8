import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { ValidateFunction } from 'ajv';
import {
  DocumentInput,
  DocumentInputDto,
  documentInputSchema,
  DocumentQuery,
  OrgRef,
  newDtoAjv,
  ResolvedOrgRef,
  schemaProblem,
  validatePlain,
} from '@dockbridge/platform';
import { PlatformError } from '../http/platform-error';
import { Organisation, SandboxState, StoredDocument } from '../state/sandbox-state';

export interface ReferenceOptions {
  /** Create and connect organisations for Core IDs that match nothing (carrier -> carrier, others -> offsite). */
  enableBaseOrgs?: boolean;
  /** The location's own Core ID, so an occupant given by Core ID can match the location. */
  selfCoreId?: string;
}

export type WriteOutcome = 'Created' | 'Updated';

const PARTY_FIELDS = ['occupant', 'offsite', 'carrier'] as const;

/** Documents stored at locations: validation, OrgRef resolution, create/put/upsert/delete, paging. */
@Injectable()
export class DocumentsService {
  constructor(private readonly state: SandboxState) {}

  /** The location `organisationId` names, if it stores documents; 404 / 400 otherwise. */
  location(organisationId: string): Organisation {
    const org = this.state.organisations.get(organisationId);
    if (!org) {
      throw PlatformError.notFound(`organisation ${organisationId} does not exist`);
    }
    if (org.kind !== 'location') {
      throw PlatformError.badRequest('Not a location', [
        `organisationId: organisation ${organisationId} is a ${org.kind}; documents live at locations`,
      ]);
    }
    if (!org.documentsEnabled) {
      throw PlatformError.badRequest('Documents not enabled', [
        `organisationId: documents are not enabled for location ${organisationId}`,
      ]);
    }
    return org;
  }

  get(location: Organisation, documentId: string): StoredDocument {
    const doc = this.state.documentsAt(location.id).get(documentId);
    if (!doc) {
      throw PlatformError.notFound(`document ${documentId} does not exist at location ${location.id}`);
    }
    return doc;
  }

  list(location: Organisation, start: number, pageSize: number): DocumentQuery<StoredDocument> {
    const all = [...this.state.documentsAt(location.id).values()].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
    return page(all, start, pageSize);
  }

  /** POST: 409 when the id exists. */
  create(location: Organisation, body: unknown, options: ReferenceOptions): StoredDocument {
    const input = this.validate(body);
    if (this.state.documentsAt(location.id).has(input.id)) {
      throw PlatformError.conflict(`document ${input.id} already exists at location ${location.id}`);
    }
    return this.write(location, input, options).document;
  }

  /** PUT: replaces an existing document; with `upsert` creates a missing one, else 404. */
  put(
    location: Organisation,
    documentId: string,
    body: unknown,
    upsert: boolean,
    options: ReferenceOptions,
  ): WriteOutcome {
    const input = this.validate(body);
    if (input.id !== documentId) {
      throw PlatformError.badRequest('Invalid document', [
        `id: the body's id ${JSON.stringify(input.id)} differs from the path's ${JSON.stringify(documentId)}`,
      ]);
    }
    if (!upsert && !this.state.documentsAt(location.id).has(documentId)) {
      throw PlatformError.notFound(
        `document ${documentId} does not exist at location ${location.id} (use upsert=true to create it)`,
      );
    }
    return this.write(location, input, options).outcome;
  }

  /** Validates and writes one document of a batch; a bad entry throws a 400 PlatformError. */
  upsert(location: Organisation, body: unknown, options: ReferenceOptions): WriteOutcome {
    return this.write(location, this.validate(body), options).outcome;
  }

  delete(location: Organisation, documentId: string): void {
    if (!this.state.documentsAt(location.id).delete(documentId)) {
      throw PlatformError.notFound(`document ${documentId} does not exist at location ${location.id}`);
    }
    this.state.countDocumentWrite(location.id);
  }

  validate(body: unknown): DocumentInput {
    // The compiled schema decides, as dockbridge's own check does; the DTO words a refusal. The DTO
    // alone refused (class-transformer threw on) free-form attributes named like `constructor`.
    compiledDocument ??= newDtoAjv().compile(documentInputSchema);
    if (compiledDocument(body)) {
      return body as DocumentInput;
    }
    const result = validatePlain(DocumentInputDto, body);
    const problems =
      !result.ok && result.problems.length > 0 ? result.problems : [schemaProblem(compiledDocument.errors)];
    throw PlatformError.badRequest('Invalid document', problems);
  }

  private write(
    location: Organisation,
    input: DocumentInput,
    options: ReferenceOptions,
  ): { document: StoredDocument; outcome: WriteOutcome } {
    const problems: string[] = [];
    const resolved: Partial<Record<(typeof PARTY_FIELDS)[number], ResolvedOrgRef>> = {};
    for (const field of PARTY_FIELDS) {
      const ref = input[field];
      if (!ref) {
        continue;
      }
      const org = this.resolve(location, field, ref, options, problems);
      if (org) {
        resolved[field] = { id: org.id, name: org.name, coreName: org.coreName, coreId: org.coreId };
      }
    }
    if (problems.length) {
      throw PlatformError.badRequest('Invalid document', problems);
    }

    const docs = this.state.documentsAt(location.id);
    const existing = docs.get(input.id);
    const now = new Date().toISOString();
    const { occupant: _o, offsite: _f, carrier: _c, ...rest } = structuredClone(input);
    const document: StoredDocument = {
      ...rest,
      ...resolved,
      createDate: existing?.createDate ?? now,
      updateDate: now,
      uses: existing?.uses ?? 0,
    };
    docs.set(input.id, document);
    this.state.countDocumentWrite(location.id);
    return { document, outcome: existing ? 'Updated' : 'Created' };
  }

  private resolve(
    location: Organisation,
    field: string,
    ref: OrgRef,
    options: ReferenceOptions,
    problems: string[],
  ): Organisation | undefined {
    if ('id' in ref) {
      const org = this.state.organisations.get(ref.id);
      if (!org || !this.state.isConnected(location.id, org.id)) {
        problems.push(`${field}.id: organisation ${ref.id} is not connected to location ${location.id}`);
      }
      return org;
    }
    const { coreName, coreId } = ref;
    // selfCoreId names the location's own Core ID for this request: it lets the occupant match the location.
    const isSelf =
      (location.coreName === coreName && location.coreId === coreId) ||
      (field === 'occupant' && options.selfCoreId !== undefined && options.selfCoreId === coreId);
    if (isSelf) {
      return location;
    }
    const match = this.state
      .connectedOrganisations(location.id)
      .find((o) => o.coreName === coreName && o.coreId === coreId);
    if (match) {
      return match;
    }
    if (!options.enableBaseOrgs) {
      problems.push(
        `${field}: no organisation with Core ID ${coreName}/${coreId} is connected to location ${location.id} (enableBaseOrgs=true creates it)`,
      );
      return undefined;
    }
    const created: Organisation = {
      id: randomUUID(),
      name: coreId,
      kind: field === 'carrier' ? 'carrier' : 'offsite',
      coreName,
      coreId,
      documentsEnabled: false,
      capacity: 1,
    };
    this.state.organisations.set(created.id, created);
    this.state.connect(location.id, created.id);
    return created;
  }
}

let compiledDocument: ValidateFunction | undefined;

export function page<T>(all: T[], start: number, pageSize: number): DocumentQuery<T> {
  return {
    start,
    pageSize,
    totalPages: Math.ceil(all.length / pageSize),
    totalRecords: all.length,
    data: all.slice(start, start + pageSize),
  };
}

/** What a stored document looks like to a client (without sandbox bookkeeping). */
export function present({ uses: _uses, ...document }: StoredDocument) {
  return document;
}
