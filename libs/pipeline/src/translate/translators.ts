import type { Message } from '@dockbridge/audit';
import {
  CanonicalOperation,
  checkCanonicalMessageInTurns,
  EdiMappingSettings,
  type InterchangeOutcome,
  PartyDirectory,
  type SetOutcome,
  translateEdiEvents,
} from '@dockbridge/mapping';
import type { OrgRef } from '@dockbridge/platform';
import { boundedJsonata, type PartnerProfile } from '@dockbridge/partners';
import { JSON_BODY_LIMITS, parseJsonInTurns } from '../json-in-turns';

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
  /** Where a 997/999 too large to hold is stored as it is written; held whole when absent. */
  draftAcknowledgment?: () => AcknowledgmentDraft;
}

/** Storage for an acknowledgment's text as it is written (the partner's outbound chunks). */
export interface AcknowledgmentDraft {
  write(text: string): Promise<void>;
  /** Writes the last of the text: what is stored is the acknowledgment, for `AcknowledgmentOutbox.deliver`. */
  finish(text: string): Promise<StoredAcknowledgment>;
  /** Removes what was stored: the interchange got a TA1 after all, or no answer. */
  discard(): Promise<void>;
}

/** An acknowledgment's text stored in chunks under a file id, not yet a file. */
export interface StoredAcknowledgment {
  id: string;
  size: number;
  sha256: string;
}

export type Acknowledgment = {
  kind: '997' | '999' | 'TA1';
  /** File name in the partner's outbound folder. */
  name: string;
} & ({ content: string; stored?: undefined } | { stored: StoredAcknowledgment; content?: undefined });

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
    parsed = await parseJsonInTurns(message.rawPayload);
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
  const check = await checkCanonicalMessageInTurns(parsed, undefined, message.rawPayload);
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

/** Where a streamed X12 translation puts each operation and refused set as it comes, in file order. */
export interface OperationSink {
  operation(interchangeKey: string, operation: CanonicalOperation): Promise<void>;
  /** A set refused on its own (mapping or envelope errors): stored failed, in its place. */
  refusedSet(interchangeKey: string, unit: RefusedUnit): Promise<void>;
  /** The interchange `key` was refused at its end (IEA showed its envelope broken): forget what it gave. */
  discardInterchange(key: string): Promise<void>;
}

/** A translation whose operations and refused sets went to a sink; `refused` holds the refused interchanges. */
export type StreamedTranslation = Omit<Translation, 'operations'>;

/** Notes kept on a message, at most: the count of the rest is said instead. */
const MAX_NOTES = 50;

/** Keeps the first MAX_NOTES notes and counts the rest. */
export class NoteList {
  private readonly kept: string[] = [];
  private more = 0;

  /** Adds each list's notes; lists, not spread notes: a file can give 100,000s (a spread of ~150,000 throws). */
  add(...lists: readonly (readonly string[])[]): void {
    for (const notes of lists) {
      for (const note of notes) {
        if (this.kept.length < MAX_NOTES) {
          this.kept.push(note);
        } else {
          this.more++;
        }
      }
    }
  }

  /** Adds another list's notes: those it kept, and the count of the rest. */
  addAll(other: NoteList): void {
    this.add(other.kept);
    this.more += other.more;
  }

  get list(): string[] {
    return this.more > 0 ? [...this.kept, `and ${this.more} more notes`] : [...this.kept];
  }
}

const refusedUnitOf = (set: SetOutcome, organisationId: string): RefusedUnit => ({
  kind: 'document.upsert',
  organisationId,
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
});

/**
 * X12 → canonical operations, each handed to `sink` as its set is mapped (a file of any size is
 * translated without holding its operations), with the 997/TA1 of each interchange.
 */
export async function streamX12(
  message: Message,
  context: TranslationContext,
  sink: OperationSink,
  envelopesOnly = false,
): Promise<StreamedTranslation> {
  const partner = context.partner;
  const settings = partner && ediSettingsOf(partner);
  if (!partner || !settings) {
    return {
      ...empty(),
      rejection: `partner ${message.partnerId} has no EDI settings (settings.edi): add senderIds and coreName to its profile`,
    };
  }
  const interchanges: InterchangeOutcome[] = [];
  const acknowledgments: Acknowledgment[] = [];
  const problems: string[] = [];
  const notes = new NoteList();
  // The notes of the interchange being read, kept as the message's are (they go if it is refused at its end).
  let pendingNotes = new NoteList();
  // The 997 of the interchange being read, once it outgrows a part: stored as it is written.
  let draft: AcknowledgmentDraft | undefined;
  // Those of the interchanges read: their chunks go if the payload is refused whole after all.
  const finished: AcknowledgmentDraft[] = [];
  const drafts = context.draftAcknowledgment;
  for await (const event of translateEdiEvents({
    raw: context.text?.() ?? message.rawPayload,
    settings,
    senderIds: partner.settings.edi!.senderIds,
    directory: directoryOf(partner),
    nextControlNumber: context.nextControlNumber,
    now: context.now,
    envelopesOnly,
    ...(drafts && {
      acknowledgmentParts: {
        write: async (text: string) => {
          draft ??= drafts();
          await draft.write(text);
        },
        discard: async () => {
          await draft?.discard();
          draft = undefined;
        },
      },
    }),
  })) {
    if (event.type === 'set') {
      const set = event.set;
      if (set.operation) {
        await sink.operation(set.interchangeKey, set.operation);
      } else if (set.rejected && !set.interchangeRefused) {
        // A refused interchange is recorded as one unit, below: its sets were never the partner's to refuse.
        await sink.refusedSet(set.interchangeKey, refusedUnitOf(set, settings.organisationId));
      }
      if (!set.rejected) {
        pendingNotes.add(set.notes);
      }
    } else if (event.type === 'interchange') {
      if (event.refusedAtEnd) {
        await sink.discardInterchange(event.outcome.key);
      } else if (!event.outcome.refused) {
        notes.addAll(pendingNotes);
      }
      pendingNotes = new NoteList();
      if (event.acknowledgment) {
        // Named after the message, so a retried translation replaces its acknowledgments instead of adding more.
        // Named by the message id's random tail (its head is a timestamp: two messages acknowledging the same
        // ISA13 within a minute would share a name and the later 997 would replace the earlier).
        const ack = event.acknowledgment;
        const name = `${ack.kind}_${fileNamePart(ack.acknowledges)}_${message.id.slice(-12)}_${acknowledgments.length + 1}.x12`;
        // With a draft, the event's content is only what follows the parts stored.
        acknowledgments.push(
          draft
            ? { kind: ack.kind, name, stored: await draft.finish(ack.content) }
            : { kind: ack.kind, name, content: ack.content },
        );
        if (draft) {
          finished.push(draft);
        }
        draft = undefined;
      }
      interchanges.push(event.outcome);
    } else if (event.refusesPayload) {
      for (const stored of [...finished, ...(draft ? [draft] : [])]) {
        await stored.discard();
      }
      return { ...empty(), rejection: event.message };
    } else {
      problems.push(event.message);
    }
  }
  const refusedInterchanges = interchanges.filter((i) => i.refused);
  const wholeMessageRefused = refusedInterchanges.length === interchanges.length;
  const translation: StreamedTranslation = {
    // An interchange refused among accepted ones is recorded as a failed unit, so the message shows it.
    refused: wholeMessageRefused
      ? []
      : refusedInterchanges.map((i) => ({
          kind: 'document.upsert' as const,
          organisationId: settings.organisationId,
          targetId: null,
          description: { interchangeKey: i.key },
          reason: `interchange ${i.control}: ${i.reason}`,
        })),
    acknowledgments,
    interchanges: interchanges.map((i) => ({
      key: i.key,
      senderId: i.senderId,
      control: i.control,
      refused: i.refused,
    })),
    duplicateWindowDays: partner.settings.edi!.duplicateWindowDays ?? 30,
    notes: notes.list,
  };
  if (interchanges.length === 0) {
    translation.rejection = problems.join('; ') || 'no X12 interchange found';
  } else if (wholeMessageRefused) {
    translation.rejection = refusedInterchanges.map((i) => `interchange ${i.control}: ${i.reason}`).join('; ');
  }
  return translation;
}

/** The whole X12 translation in memory (previews, small payloads): streamX12 into arrays. */
export const translateX12: Translator = async (message, context) => {
  const operations: Translation['operations'] = [];
  const refusedSets: (RefusedUnit & { interchangeKey: string })[] = [];
  const translation = await streamX12(message, context, {
    operation: async (interchangeKey, operation) => void operations.push({ interchangeKey, operation }),
    refusedSet: async (interchangeKey, unit) => void refusedSets.push({ ...unit, interchangeKey }),
    discardInterchange: async (key) => {
      remove(operations, (o) => o.interchangeKey === key);
      remove(refusedSets, (u) => u.interchangeKey === key);
    },
  });
  return {
    ...translation,
    operations,
    refused: [...refusedSets.map(({ interchangeKey: _key, ...unit }) => unit), ...translation.refused],
  };
};

/** Removes the items that match, in place. */
function remove<T>(items: T[], matches: (item: T) => boolean): void {
  let kept = 0;
  for (const item of items) {
    if (!matches(item)) {
      items[kept++] = item;
    }
  }
  items.length = kept;
}

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
    body = await parseJsonInTurns(message.rawPayload);
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
 * What a mapping may make at most: what a partner could send as a message (JSON_BODY_LIMITS: values,
 * nesting, members of an object) and 16 MiB of JSON.
 * JSONata shares what an expression copies (`$$.note` into every item): 50,000 items of a 700 KB
 * note evaluated in 1.15 s, ~35 GB of operations to check and store.
 */
export const MAPPED_LIMITS = { maxValues: JSON_BODY_LIMITS.maxValues, maxChars: 16 * 1024 * 1024 };

/** What a value holds as it would be stored: its JSON values and, about, its JSON text's length. */
interface Held {
  values: number;
  chars: number;
  /** Levels of containers in it, itself included (0 for a scalar). */
  height: number;
}

class PastMappedLimits extends Error {}

/**
 * How a mapping's result goes past MAPPED_LIMITS, or null: counted as it would be stored, a shared
 * value at each place it appears, but measured once (a 139,000-key object shared ten times was 2.3 s
 * walked at each place), and only up to the limits, nesting included (a shared value is checked at
 * each depth it sits at).
 */
function oversizedResult(result: unknown): string | null {
  const total = { values: 0, chars: 0 };
  const measured = new WeakMap<object, Held>();
  const add = (held: Held): Held => {
    total.values += held.values;
    total.chars += held.chars;
    if (total.values > MAPPED_LIMITS.maxValues) {
      throw new PastMappedLimits(
        `produced more than ${MAPPED_LIMITS.maxValues} JSON values (a message may hold no more)`,
      );
    }
    if (total.chars > MAPPED_LIMITS.maxChars) {
      throw new PastMappedLimits(
        `produced more than ${MAPPED_LIMITS.maxChars} characters of JSON (what it copies counts each time)`,
      );
    }
    return held;
  };
  const deeper = () =>
    new PastMappedLimits(
      `produced JSON nested deeper than ${JSON_BODY_LIMITS.maxDepth} levels (a message's is no deeper)`,
    );
  // `level`: where the value sits, counted as in the message its operations make (the body 1, operations 2).
  const measure = (value: unknown, level: number): Held => {
    if (value === null || typeof value !== 'object') {
      // A string with its quotes, anything else as JSON writes it, and its comma.
      const chars = typeof value === 'string' ? value.length + 3 : String(value).length + 1;
      return add({ values: 1, chars, height: 0 });
    }
    const known = measured.get(value);
    if (known) {
      // Met before, perhaps less deep: its depth here is checked anew.
      if (level + known.height - 1 > JSON_BODY_LIMITS.maxDepth) {
        throw deeper();
      }
      return add(known);
    }
    if (level > JSON_BODY_LIMITS.maxDepth) {
      throw deeper();
    }
    const own = { ...add({ values: 1, chars: 2, height: 1 }) }; // its brackets
    const keys = Array.isArray(value) ? null : Object.keys(value);
    if (keys && keys.length > JSON_BODY_LIMITS.maxObjectMembers) {
      // As a body's: the operation check's key handling is quadratic in an object's width.
      throw new PastMappedLimits(
        `produced an object of ${keys.length} members, more than ${JSON_BODY_LIMITS.maxObjectMembers} (a message's hold no more)`,
      );
    }
    const members = keys ? keys.map((key) => (value as Record<string, unknown>)[key]) : (value as unknown[]);
    for (let i = 0; i < members.length; i++) {
      if (keys) {
        own.chars += add({ values: 0, chars: keys[i].length + 3, height: 0 }).chars; // its key, quoted, and colon
      }
      const member = measure(members[i], level + 1);
      own.values += member.values;
      own.chars += member.chars;
      own.height = Math.max(own.height, member.height + 1);
    }
    measured.set(value, own);
    return own;
  };
  try {
    measure(result, 2);
    return null;
  } catch (error) {
    if (error instanceof PastMappedLimits) {
      return error.message;
    }
    throw error;
  }
}

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
  const oversized = oversizedResult(operations);
  if (oversized) {
    return { stage: 'result', error: { message: oversized } };
  }
  const check = await checkCanonicalMessageInTurns({ operations });
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

/**
 * An ISA13 as part of a file name: the sender writes it, and one with a '/', a control character or
 * 300 characters (refused, with a TA1) made the file name invalid and failed the whole translation.
 */
export const fileNamePart = (control: string): string => (/^[0-9A-Za-z]{1,20}$/.test(control) ? control : 'invalid');
