import type { Message } from '@dockbridge/audit';
import {
  CanonicalOperation,
  checkCanonicalMessage,
  EdiMappingSettings,
  PartyDirectory,
  translateEdi,
} from '@dockbridge/mapping';
import type { OrgRef } from '@dockbridge/platform';
import { boundedJsonata, type PartnerProfile } from '@dockbridge/partners';

/** The content type of a canonical operations message (`POST /v1/messages`). */
export const CANONICAL_CONTENT_TYPE = 'application/vnd.dockbridge.operations+json';
/** ASC X12 (SFTP uploads, `POST /v1/edi`). */
export const X12_CONTENT_TYPE = 'application/edi-x12';

export interface TranslationContext {
  partner: PartnerProfile | null;
  /** The partner's JSONata mapping: a version number, or the current one. */
  mapping(version: number | 'current'): Promise<{ version: number; expression: string } | null>;
  nextControlNumber(): Promise<number>;
  now: Date;
  /** The payload's text a slice at a time, from wherever it is kept (a stored upload); `message.rawPayload` when absent. */
  text?: () => AsyncIterable<string>;
}

export interface Acknowledgment {
  kind: '997' | '999' | 'TA1';
  /** File name in the partner's outbound folder. */
  name: string;
  content: string;
}

/** A unit that could not be translated (an EDI set): stored as a failed operation, with its reason. */
export interface RefusedUnit {
  kind: CanonicalOperation['kind'];
  organisationId: string | null;
  targetId: string | null;
  description: Record<string, unknown>;
  reason: string;
}

export interface Translation {
  /** Operations to deliver; `interchangeKey` ties EDI operations to their interchange (duplicate detection). */
  operations: { operation: CanonicalOperation; interchangeKey?: string }[];
  refused: RefusedUnit[];
  acknowledgments: Acknowledgment[];
  /**
   * Interchanges the payload carried and their acceptance: `key` (`ISA05/ISA06/ISA13`, see
   * interchangeKey) for duplicate detection, sender (ISA06) and control number (ISA13) recorded on
   * the message for engineers to search by.
   */
  interchanges: { key: string; senderId: string; control: string; refused: boolean }[];
  /** Set when the message as a whole is refused: nothing to deliver, and this is why. */
  rejection?: string;
  /** A duplicate-detection window for the interchanges, days. */
  duplicateWindowDays?: number;
  /** The mapping version used (webhooks), recorded on the message. */
  mappingVersion?: number;
  /** Things an operator should know that did not stop delivery (EDI element errors acknowledged with AK5 E). */
  notes?: string[];
}

/** Turns a stored payload into canonical operations. Pure but for the context's sequence. */
export type Translator = (message: Message, context: TranslationContext) => Promise<Translation>;

const empty = (): Translation => ({ operations: [], refused: [], acknowledgments: [], interchanges: [] });

export const translateCanonical: Translator = async (message) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.rawPayload);
  } catch (error) {
    return { ...empty(), rejection: `payload is not valid JSON: ${(error as Error).message}` };
  }
  // `POST /v1/messages` recorded this payload only after checking it, and a recorded payload never
  // changes: checking 25,000 documents again costs seconds. Replays (possibly edited) are checked.
  if (message.channel === 'api') {
    return {
      ...empty(),
      operations: (parsed as { operations: CanonicalOperation[] }).operations.map((operation) => ({ operation })),
    };
  }
  const check = checkCanonicalMessage(parsed);
  return check.ok
    ? { ...empty(), operations: check.operations.map((operation) => ({ operation })) }
    : { ...empty(), rejection: check.problems.join('; ') };
};

/** The partner's directory as a lookup for the mappers. */
export function directoryOf(partner: PartnerProfile): PartyDirectory {
  const byCode = new Map<string, OrgRef>();
  const byScac = new Map<string, OrgRef>();
  for (const entry of partner.settings.directory ?? []) {
    const ref = (
      entry.organisation.id
        ? { id: entry.organisation.id }
        : { coreName: entry.organisation.coreName!, coreId: entry.organisation.coreId! }
    ) as OrgRef;
    if (entry.scac) {
      byScac.set(entry.scac, ref);
    }
    if (entry.qualifier && entry.code) {
      byCode.set(`${entry.qualifier}|${entry.code}`, ref);
    }
  }
  return { byCode: (qualifier, code) => byCode.get(`${qualifier}|${code}`), byScac: (scac) => byScac.get(scac) };
}

/** The mapping settings of a partner's EDI (`settings.edi`), on top of its delivery settings. */
export function ediSettingsOf(partner: PartnerProfile): EdiMappingSettings | undefined {
  const edi = partner.settings.edi;
  if (!edi) {
    return undefined;
  }
  return {
    organisationId: partner.locationOrganisationId,
    coreName: edi.coreName,
    locationCodes: edi.locationCodes,
    defaultDirection: edi.defaultDirection,
    documentSettings: edi.documentSettings,
    defaultLoadName: edi.defaultLoadName,
    loadTagQualifiers: edi.loadTagQualifiers,
    enableBaseOrgs: partner.settings.enableBaseOrgs,
    selfCoreId: partner.settings.selfCoreId,
    acknowledgment: { kind: edi.acknowledgment, interchangeId: edi.interchangeId },
    rejectSetsWithSegmentErrors: edi.rejectSetsWithSegmentErrors,
  };
}

export const translateX12: Translator = async (message, context) => {
  const partner = context.partner;
  const settings = partner && ediSettingsOf(partner);
  if (!partner || !settings) {
    return {
      ...empty(),
      rejection: `partner ${message.partnerId} has no EDI settings (settings.edi): add senderIds and coreName to its profile`,
    };
  }
  const result = await translateEdi({
    raw: context.text?.() ?? message.rawPayload,
    settings,
    senderIds: partner.settings.edi!.senderIds,
    directory: directoryOf(partner),
    nextControlNumber: context.nextControlNumber,
    now: context.now,
  });
  const refused: RefusedUnit[] = result.sets
    // A refused interchange is recorded as one unit, below: its sets were never the partner's to refuse.
    .filter((set) => set.rejected && !set.interchangeRefused)
    .map((set) => ({
      kind: 'document.upsert',
      organisationId: settings.organisationId,
      targetId: set.documentId || null,
      description: {
        setId: set.setId,
        transactionControl: set.transactionControl,
        documentId: set.documentId ?? null,
        interchangeKey: set.interchangeKey,
      },
      // An envelope-rejected set is found by its document id (targetId) but reasoned about by its control number.
      reason: `${set.setId} ${set.transactionControl}${set.documentId && !set.envelopeRejected ? ` (${set.documentId})` : ''}: ${set.diagnostics
        .filter((d) => d.level === 'error')
        .map((d) => d.message)
        .join('; ')}`,
    }));
  const refusedInterchanges = result.interchanges.filter((i) => i.refused);
  const wholeMessageRefused = refusedInterchanges.length === result.interchanges.length;
  // An interchange refused among accepted ones is recorded as a failed unit, so the message shows it.
  if (!wholeMessageRefused) {
    for (const i of refusedInterchanges) {
      refused.push({
        kind: 'document.upsert',
        organisationId: settings.organisationId,
        targetId: null,
        description: { interchangeKey: i.key },
        reason: `interchange ${i.control}: ${i.reason}`,
      });
    }
  }
  const translation: Translation = {
    operations: result.operations,
    refused,
    // Named after the message, so a retried translation replaces its acknowledgments instead of adding more.
    // Named by the message id's random tail (its head is a timestamp: two messages acknowledging the same
    // ISA13 within a minute would share a name and the later 997 would replace the earlier).
    acknowledgments: result.acknowledgments.map((ack, i) => ({
      kind: ack.kind,
      name: `${ack.kind}_${ack.acknowledges}_${message.id.slice(-12)}_${i + 1}.x12`,
      content: ack.content,
    })),
    interchanges: result.interchanges.map((i) => ({
      key: i.key,
      senderId: i.senderId,
      control: i.control,
      refused: i.refused,
    })),
    duplicateWindowDays: partner.settings.edi!.duplicateWindowDays ?? 30,
    notes: result.sets.flatMap((set) => (set.rejected ? [] : set.notes)),
  };
  if (result.interchanges.length === 0) {
    translation.rejection = result.problems.join('; ') || 'no X12 interchange found';
  } else if (wholeMessageRefused) {
    translation.rejection = refusedInterchanges.map((i) => `interchange ${i.control}: ${i.reason}`).join('; ');
  }
  return translation;
};

/** A partner webhook (`POST /v1/webhooks/{partner}`): mapped by the partner's JSONata expression. */
export const WEBHOOK_CONTENT_TYPE = 'application/vnd.dockbridge.webhook+json';

/** Longest a partner's mapping may run on one webhook (a loop is rejected with the reason, not retried for ever). */
const MAPPING_TIMEOUT_MS = 2_000;

/**
 * Webhook body → canonical operations with the partner's JSONata mapping, the version the message
 * records (`metadata.mappingVersion`: a number, or 'current' for a replay that asked for today's).
 */
export const translateWebhook: Translator = async (message, context) => {
  const wanted = message.metadata?.mappingVersion ?? 'current';
  const mapping = await context.mapping(wanted === 'current' ? 'current' : Number(wanted));
  if (!mapping) {
    return {
      ...empty(),
      rejection: `partner ${message.partnerId} has no webhook mapping${wanted === 'current' ? '' : ` version ${wanted}`}`,
    };
  }
  let body: unknown;
  try {
    body = JSON.parse(message.rawPayload);
  } catch (error) {
    return { ...empty(), rejection: `payload is not valid JSON: ${(error as Error).message}` };
  }
  const mapped = await runMapping(mapping.expression, body);
  if ('error' in mapped) {
    const e = mapped.error;
    return {
      ...empty(),
      rejection: `mapping v${mapping.version} ${mapped.stage === 'evaluate' ? 'failed: ' : ''}${e.message}${e.position !== undefined ? ` at position ${e.position}${e.token ? ` (${e.token})` : ''}` : ''}`,
    };
  }
  return {
    ...empty(),
    operations: mapped.operations.map((operation) => ({ operation })),
    mappingVersion: mapping.version,
  };
};

/** Why a mapping gave no operations: where it went wrong (evaluate, or what it produced), and JSONata's position. */
export interface MappingError {
  message: string;
  /** Character offset in the expression, when JSONata gives one. */
  position?: number;
  token?: string;
}

export type MappingRun = { operations: CanonicalOperation[] } | { stage: 'evaluate' | 'result'; error: MappingError };

/**
 * A partner's JSONata mapping over one webhook body: the canonical operations it yields, or why it
 * yields none (a failure at a position, no operations, invalid ones). Pure but for the clock of its
 * guardrail; the console's mapping editor runs the same function on a sample.
 */
export async function runMapping(expression: string, body: unknown): Promise<MappingRun> {
  let result: unknown;
  try {
    result = await boundedJsonata(expression, MAPPING_TIMEOUT_MS).evaluate(body);
  } catch (error) {
    const e = error as { message?: string; position?: number; token?: string };
    return {
      stage: 'evaluate',
      error: { message: e.message ?? String(error), position: e.position, token: e.token },
    };
  }
  const operations = result === undefined ? [] : Array.isArray(result) ? result : [result];
  if (operations.length === 0) {
    return { stage: 'result', error: { message: 'produced no operations for this payload' } };
  }
  const check = checkCanonicalMessage({ operations });
  if (!check.ok) {
    return { stage: 'result', error: { message: `produced invalid operations: ${check.problems.join('; ')}` } };
  }
  return { operations: check.operations };
}

/** Translators by content type. */
export const TRANSLATORS: Readonly<Record<string, Translator>> = {
  [CANONICAL_CONTENT_TYPE]: translateCanonical,
  [X12_CONTENT_TYPE]: translateX12,
  [WEBHOOK_CONTENT_TYPE]: translateWebhook,
};
