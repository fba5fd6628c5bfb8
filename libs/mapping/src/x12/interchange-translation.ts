import {
  type AcknowledgmentOptions,
  answered,
  buildTA1,
  forgetScannedSegment,
  type FunctionalGroup,
  FunctionalAcknowledgmentWriter,
  Interchange,
  interchangeKey,
  readX12,
  type Problem,
  summaryOf,
  ta1NoteCode,
  TransactionSet,
} from '@dockbridge/x12';
import type { CanonicalOperation } from '../canonical-operation';
import type { TransactionMapping } from './document-builder';
import { documentIdOf, MAPPED_SETS, mapTransaction } from './edi-mapping';
import type { EdiMappingSettings, PartyDirectory } from './edi-types';

export interface EdiTranslationInput {
  /** The payload's text, whole or a slice at a time (a stored upload is never one string). */
  raw: string | AsyncIterable<string>;
  settings: EdiMappingSettings;
  /** ISA06 ids the partner may send with; another sender's interchange is refused with a TA1 (note 006). */
  senderIds: readonly string[];
  directory: PartyDirectory;
  /** A fresh ISA13 for each acknowledgment interchange (the caller's sequence). */
  nextControlNumber: () => Promise<number>;
  now: Date;
  /**
   * Where each 997/999 goes as it is written, a part of about ACKNOWLEDGMENT_PART_CHARS at a time, for
   * a caller that keeps it out of memory (the worker stores it in chunks): the `interchange` event's
   * acknowledgment then holds only the text after the parts. `discard` voids the parts written since
   * the last interchange event (its interchange got a TA1, or no answer). Without it, each 997 is held
   * until its interchange ends (a preview answers it whole).
   */
  acknowledgmentParts?: AcknowledgmentParts;
  /**
   * Reads the envelopes only: no set is mapped or yielded (a check, before a translation, of whether
   * anything would be refused whole: refusals are the envelopes' and senders', never the mapping's).
   */
  envelopesOnly?: boolean;
  /** Interchanges a payload may hold (MAX_INTERCHANGES_PER_PAYLOAD when absent): see there. */
  maxInterchanges?: number;
}

export interface AcknowledgmentParts {
  write(text: string): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Characters of a 997/999 handed to `acknowledgmentParts` at a time: an acknowledgment that outgrows
 * one part takes its control number then (its ISA comes first), not at its interchange's end.
 */
export const ACKNOWLEDGMENT_PART_CHARS = 64 * 1024;
/**
 * Interchanges one payload may hold. What the translation keeps per interchange (its outcome, its
 * 997/TA1 file, its receipt) grows with their number, not with the bytes: 256 MiB of one-set
 * interchanges is ~400,000 of them. A payload with more is refused whole, before its last is read.
 */
export const MAX_INTERCHANGES_PER_PAYLOAD = 10_000;
/**
 * Functional groups one interchange may hold: the reader keeps each group of the interchange being
 * read (~1 KB: its segments, its problems) until its IEA, and 256 MiB of one-set groups is ~500,000.
 * One more refuses the payload whole, as an interchange too many does.
 */
export const MAX_GROUPS_PER_INTERCHANGE = 10_000;
/** Sets without SE an interchange's refusal names one by one; the rest are counted. */
const CUT_OFF_NAMED = 20;

export interface InterchangeOutcome {
  /** `ISA05/ISA06/ISA13` (sender qualifier, sender, control number): what duplicate detection keys on. */
  key: string;
  senderId: string;
  control: string;
  /** The envelope or sender was refused: nothing of it is delivered. */
  refused: boolean;
  /** A second copy of an interchange earlier in the same payload (TA1 note 025). */
  duplicate?: boolean;
  reason?: string;
}

export interface SetOutcome extends TransactionMapping {
  interchangeKey: string;
  /** Element errors the 997 reports while the set is still accepted (AK5 E): recorded as the operator's reason. */
  notes: string[];
  /** The envelope check refused the set itself (counts, control numbers): it was not mapped. */
  envelopeRejected: boolean;
  /**
   * Its interchange was refused (TA1, unknown sender, a second copy in the file): nothing of the set
   * goes out, whatever its own content (`rejected` is true and there is no operation).
   */
  interchangeRefused?: boolean;
}

export interface Acknowledgment {
  kind: '997' | '999' | 'TA1';
  /** ISA13 of the interchange acknowledged. */
  acknowledges: string;
  content: string;
}

export interface EdiTranslation {
  interchanges: InterchangeOutcome[];
  sets: SetOutcome[];
  operations: { interchangeKey: string; operation: CanonicalOperation }[];
  acknowledgments: Acknowledgment[];
  /** Problems outside any interchange (not X12 at all, garbage before the first ISA, an unreadable ISA), readable. */
  problems: string[];
}

/** Problems that open no interchange (nothing to acknowledge): they are the payload's reason when nothing else is read. */
const OUTSIDE_INTERCHANGES = new Set(['NO_INTERCHANGE', 'ISA_TRUNCATED', 'ISA_INVALID', 'DELIMITERS_INVALID']);

const describe = (p: { message: string; line?: number; column?: number }) =>
  p.line ? `${p.message} (line ${p.line}, column ${p.column})` : p.message;

/** What translating a payload yields, in file order: each set as it is mapped, each interchange as it ends. */
export type EdiEvent =
  /** A set, mapped (or refused with its interchange); its operation is final only if its interchange is not refused at its end. */
  | { type: 'set'; set: SetOutcome }
  /** An interchange ended: refused now (TA1, envelope errors found at IEA) means none of its sets goes out. */
  | { type: 'interchange'; outcome: InterchangeOutcome; acknowledgment?: Acknowledgment; refusedAtEnd: boolean }
  /**
   * A problem outside any interchange, readable. `refusesPayload`: nothing of the payload may go out
   * (no operation, no acknowledgment), and reading stopped there.
   */
  | { type: 'problem'; message: string; refusesPayload?: boolean };

/**
 * Reads every interchange of an X12 payload, checks envelopes and the sender, maps each 850/856,
 * and writes one acknowledgment per interchange: a 997 (AK5 per set: mapping rejections become
 * AK3/AK4 segment errors), or a TA1 when the envelope itself is refused. Streams one set at a time
 * and holds nothing of a set once it is yielded (its 997 lines are written then), so a caller that
 * stores each set and each `acknowledgmentParts` part as they come translates a file of any size,
 * and any number of sets to a group, in flat memory.
 */
export async function* translateEdiEvents(input: EdiTranslationInput): AsyncGenerator<EdiEvent> {
  const pending = new Map<Interchange, OpenInterchange>();
  const allowed = new Set(input.senderIds.map((id) => id.trim()));
  const seen = new Set<string>();
  const maxInterchanges = input.maxInterchanges ?? MAX_INTERCHANGES_PER_PAYLOAD;
  let opened = 0;
  let found = false;
  let problems = false;

  // Syntax notes only ever fault a set (AK5), never an interchange: reading envelopes, they are skipped.
  const options = { checkSyntaxNotes: !input.envelopesOnly };
  for await (const event of readX12(typeof input.raw === 'string' ? [input.raw] : input.raw, options)) {
    if (event.type === 'interchange') {
      if (++opened > maxInterchanges) {
        forgetScannedSegment();
        yield {
          type: 'problem',
          refusesPayload: true,
          message: `the payload holds more than ${maxInterchanges} interchanges (the next is ISA13 ${event.interchange.fields.controlNumber.trim()}): nothing of it is delivered or acknowledged; send at most ${maxInterchanges} interchanges in a file`,
        };
        return;
      }
      const senderId = event.interchange.fields.senderId.trim();
      const outcome: InterchangeOutcome = {
        key: interchangeKey(event.interchange),
        senderId,
        control: event.interchange.fields.controlNumber.trim(),
        refused: false,
      };
      if (!allowed.has(senderId)) {
        outcome.refused = true;
        outcome.reason = `interchange sender ${JSON.stringify(senderId)} (ISA06) is not one of this partner's sender ids`;
      } else if (seen.has(outcome.key)) {
        outcome.refused = true;
        outcome.duplicate = true;
        outcome.reason = `interchange ${outcome.control} from ${senderId} appears twice in this file; the second copy is not delivered`;
      }
      seen.add(outcome.key);
      pending.set(event.interchange, openInterchange(event.interchange, outcome, input));
    } else if (event.type === 'group') {
      const open = pending.get(event.interchange);
      if (open && ++open.groups > MAX_GROUPS_PER_INTERCHANGE) {
        forgetScannedSegment();
        yield {
          type: 'problem',
          refusesPayload: true,
          message: `interchange ${open.outcome.control} holds more than ${MAX_GROUPS_PER_INTERCHANGE} functional groups (the next is GS06 ${event.group.control}): nothing of the payload is delivered or acknowledged; send at most ${MAX_GROUPS_PER_INTERCHANGE} groups in an interchange`,
        };
        return;
      }
      open?.ack?.openGroup(event.group);
    } else if (event.type === 'transactionSet') {
      const open = pending.get(event.interchange);
      if (!open || input.envelopesOnly) {
        continue;
      }
      const { outcome, ack } = open;
      // A refused sender's (or a repeated) interchange is not mapped, only listed: what it carried, and why it is not delivered.
      const set = outcome.refused
        ? refusedSet(event.transactionSet, outcome)
        : mapSet(event.interchange, event.group.control, event.transactionSet, input, outcome.key);
      if (ack) {
        // After mapping: a mapper's rejection is in the set's problems, and its AK5 says so.
        ack.set(summaryOf(event.transactionSet));
        noteCutOff(open, event.group, event.transactionSet);
        await writeAcknowledgmentPart(open, input);
      }
      yield { type: 'set', set };
    } else if (event.type === 'groupEnd') {
      pending.get(event.interchange)?.ack?.closeGroup(event.group);
    } else if (event.type === 'interchangeEnd') {
      const open = pending.get(event.interchange);
      if (!open) {
        continue;
      }
      pending.delete(event.interchange);
      found = true;
      yield await finish(event.interchange, open, input);
    } else if (event.type === 'problem' && OUTSIDE_INTERCHANGES.has(event.problem.code)) {
      problems = true;
      yield { type: 'problem', message: describe(event.problem) };
    }
  }
  if (!found && !problems) {
    yield { type: 'problem', message: 'no X12 interchange found (the payload must start with ISA)' };
  }
  forgetScannedSegment(); // the mappers read segments after the reader finished
}

/** An interchange being read: what it will be answered with is written as its sets end. */
interface OpenInterchange {
  outcome: InterchangeOutcome;
  /** Its 997/999, unless it was refused when it began (a TA1 answers it then). */
  ack?: FunctionalAcknowledgmentWriter;
  kind: '997' | '999';
  /** Taken when its acknowledgment first outgrew a part (ISA13 comes first), else at its end. */
  controlNumber?: number;
  partsWritten: boolean;
  /** Its functional groups so far (GS). */
  groups: number;
  /** Sets cut off without SE, by group, the first CUT_OFF_NAMED of them (see envelopeErrorsOf). */
  cutOff: Map<FunctionalGroup, Problem[]>;
  cutOffNamed: number;
  cutOffMore: number;
}

function openInterchange(
  interchange: Interchange,
  outcome: InterchangeOutcome,
  input: EdiTranslationInput,
): OpenInterchange {
  // A 999 exists from 5010 on: a partner set to 999 still gets a 997 for a 4010 interchange.
  const kind = input.settings.acknowledgment?.kind === '999' && interchange.fields.version >= '00501' ? '999' : '997';
  return {
    outcome,
    kind,
    ...(!outcome.refused && {
      ack: new FunctionalAcknowledgmentWriter(kind, interchange, acknowledgmentOptions(interchange, input)),
    }),
    partsWritten: false,
    groups: 0,
    cutOff: new Map(),
    cutOffNamed: 0,
    cutOffMore: 0,
  };
}

/** Hands the acknowledgment's text on once it fills a part, when the caller takes parts. */
async function writeAcknowledgmentPart(open: OpenInterchange, input: EdiTranslationInput): Promise<void> {
  const ack = open.ack!;
  if (!input.acknowledgmentParts || ack.pending < ACKNOWLEDGMENT_PART_CHARS) {
    return;
  }
  if (!ack.started) {
    open.controlNumber = await input.nextControlNumber();
    ack.begin(open.controlNumber);
  }
  open.partsWritten = true;
  await input.acknowledgmentParts.write(ack.take());
}

function noteCutOff(open: OpenInterchange, group: FunctionalGroup, set: TransactionSet): void {
  for (const p of set.problems) {
    if (p.severity !== 'error' || p.code !== 'MISSING_SE') {
      continue;
    }
    if (open.cutOffNamed >= CUT_OFF_NAMED) {
      open.cutOffMore++;
      continue;
    }
    open.cutOffNamed++;
    const named = open.cutOff.get(group);
    if (named) {
      named.push(p);
    } else {
      open.cutOff.set(group, [p]);
    }
  }
}

/** The whole translation of a payload at once: for previews and small payloads (it holds every set). */
export async function translateEdi(input: EdiTranslationInput): Promise<EdiTranslation> {
  const result: EdiTranslation = { interchanges: [], sets: [], operations: [], acknowledgments: [], problems: [] };
  let sets: SetOutcome[] = [];
  for await (const event of translateEdiEvents(input)) {
    if (event.type === 'set') {
      sets.push(event.set);
    } else if (event.type === 'problem') {
      result.problems.push(event.message);
    } else {
      const { outcome } = event;
      if (event.refusedAtEnd) {
        sets = sets.map((set) => refusedAtEnd(set, outcome));
      }
      if (event.acknowledgment) {
        result.acknowledgments.push(event.acknowledgment);
      }
      if (!outcome.refused) {
        for (const set of sets) {
          if (set.operation) {
            result.operations.push({ interchangeKey: outcome.key, operation: set.operation });
          }
        }
      }
      result.interchanges.push(outcome);
      sets.forEach((set) => result.sets.push(set)); // an interchange can hold 100,000s: no spread
      sets = [];
    }
  }
  return result;
}

/** A set mapped before its interchange's end showed the envelope broken: none of it goes out. */
export function refusedAtEnd(set: SetOutcome, outcome: InterchangeOutcome): SetOutcome {
  const { operation: _dropped, ...rest } = set;
  return {
    ...rest,
    rejected: true,
    interchangeRefused: true,
    diagnostics: [...rest.diagnostics, refusedDiagnostic(rest.transactionControl, outcome)],
  };
}

function mapSet(
  interchange: Interchange,
  groupControl: string,
  set: TransactionSet,
  input: EdiTranslationInput,
  key: string,
): SetOutcome {
  const envelopeErrors = set.problems.filter((p) => p.severity === 'error' && p.code !== 'SYNTAX_NOTE');
  if (envelopeErrors.length > 0) {
    const documentId = documentIdOf(set.id, set.segments);
    return {
      transactionControl: set.control,
      setId: set.id,
      // Not mapped, but named: searching for the PO or ASN number finds the message that carried it.
      ...(documentId && { documentId }),
      rejected: true,
      envelopeRejected: true,
      interchangeRefused: false,
      interchangeKey: key,
      notes: [],
      diagnostics: atMost(
        envelopeErrors.map((p) => ({
          level: 'error' as const,
          transactionControl: set.control,
          message: describe(p),
          ...(p.tag && { segmentTag: p.tag }),
        })),
        set.control,
      ),
    };
  }
  const mapping = mapTransaction(
    {
      setId: set.id,
      envelope: {
        senderId: interchange.fields.senderId.trim(),
        receiverId: interchange.fields.receiverId.trim(),
        interchangeControl: interchange.fields.controlNumber.trim(),
        groupControl,
        transactionControl: set.control,
        componentSeparator: interchange.delimiters.component,
      },
      segments: set.segments,
      elementErrors: syntaxErrorsOf(set),
    },
    input.settings,
    input.directory,
  );
  // A mapping rejection is acknowledged like a data error at the segment it names (AK3/AK4, AK5 R);
  // a set type not handled at all is "transaction set not supported" (AK5 R 1).
  // The set's problems are the very list its 997 summary reads.
  if (!MAPPED_SETS.includes(set.id)) {
    set.problems.push({
      code: 'SET_NOT_SUPPORTED',
      severity: 'error',
      message: mapping.diagnostics[0]?.message ?? `transaction set ${set.id} is not supported`,
    });
  } else if (mapping.rejected) {
    for (const d of mapping.diagnostics.filter((x) => x.level === 'error')) {
      set.problems.push({
        code: 'APPLICATION_ERROR',
        severity: 'error',
        message: d.message,
        setPosition: d.segmentPosition,
        tag: d.segmentTag,
        element: d.element,
        elementCode: d.code,
        segmentCode: d.segmentCode,
        value: d.value,
      });
    }
  }
  const syntaxErrors = set.problems.filter((p) => p.code === 'SYNTAX_NOTE');
  const notes = syntaxErrors.map((p) => `${set.id} ${set.control}: ${describe(p)}`);
  if (syntaxErrors.length > 0 && input.settings.rejectSetsWithSegmentErrors && !mapping.rejected) {
    // The partner's 997 says R for these sets (edi.rejectSetsWithSegmentErrors): nothing of them is delivered.
    const { operation: _dropped, ...refused } = mapping;
    return {
      ...refused,
      rejected: true,
      diagnostics: atMost(
        [
          ...mapping.diagnostics,
          ...syntaxErrors.map((p) => ({
            level: 'error' as const,
            transactionControl: set.control,
            message: `${describe(p)} (rejected: edi.rejectSetsWithSegmentErrors)`,
            ...(p.setPosition && { segmentPosition: p.setPosition, segmentTag: p.tag }),
            ...(p.element && { element: p.element }),
          })),
        ],
        set.control,
      ),
      envelopeRejected: false,
      interchangeRefused: false,
      interchangeKey: key,
      notes: [],
    };
  }
  // The mapping becomes the outcome in place (it is this set's own): spreading it into a new object
  // took V8's slow path, ~10% of translating an 856 of 4-item ASNs.
  const outcome = mapping as SetOutcome;
  outcome.envelopeRejected = false;
  outcome.interchangeRefused = false;
  outcome.interchangeKey = key;
  outcome.notes = notes.length > MAX_SET_DIAGNOSTICS ? listedNotes(notes) : notes;
  if (outcome.diagnostics.length > MAX_SET_DIAGNOSTICS) {
    outcome.diagnostics = atMost(outcome.diagnostics, set.control);
  }
  return outcome;
}

/**
 * Diagnostics (and notes) a set's outcome lists; the rest are counted. A set of 99,000 `N1*SF~`
 * made as many, a 58 MB preview and 1 GB of the gateway's memory for a 3.5 MB body. Its 997
 * still names every segment (AK3), written as it is read.
 */
export const MAX_SET_DIAGNOSTICS = 50;

function atMost(diagnostics: SetOutcome['diagnostics'], control: string): SetOutcome['diagnostics'] {
  if (diagnostics.length <= MAX_SET_DIAGNOSTICS) {
    return diagnostics;
  }
  const more = diagnostics.length - MAX_SET_DIAGNOSTICS;
  const level = diagnostics.slice(MAX_SET_DIAGNOSTICS).some((d) => d.level === 'error') ? 'error' : 'warning';
  return [
    ...diagnostics.slice(0, MAX_SET_DIAGNOSTICS),
    { level, transactionControl: control, message: `and ${more} more problem(s) in this set (its 997 names each)` },
  ];
}

function listedNotes(notes: string[]): string[] {
  return [...notes.slice(0, MAX_SET_DIAGNOSTICS), `and ${notes.length - MAX_SET_DIAGNOSTICS} more notes`];
}

/** The syntax-note findings of a set, for the mapper to tell which loads they touched. */
function syntaxErrorsOf(set: TransactionSet): { position: number; element: number; note?: string }[] | undefined {
  let found: { position: number; element: number; note?: string }[] | undefined;
  for (const p of set.problems) {
    if (p.code === 'SYNTAX_NOTE' && p.setPosition && p.element) {
      (found ??= []).push({ position: p.setPosition, element: p.element, ...(p.note && { note: p.note }) });
    }
  }
  return found;
}

/** A set of a refused interchange: listed with its document id, never mapped or delivered. */
function refusedSet(set: TransactionSet, outcome: InterchangeOutcome): SetOutcome {
  const documentId = documentIdOf(set.id, set.segments);
  return {
    transactionControl: set.control,
    setId: set.id,
    ...(documentId && { documentId }),
    rejected: true,
    envelopeRejected: false,
    interchangeRefused: true,
    interchangeKey: outcome.key,
    notes: [],
    diagnostics: [refusedDiagnostic(set.control, outcome)],
  };
}

function refusedDiagnostic(control: string, outcome: InterchangeOutcome): SetOutcome['diagnostics'][number] {
  return {
    level: 'error',
    transactionControl: control,
    message: `interchange ${outcome.control} was refused: ${outcome.reason ?? 'envelope errors'}`,
  };
}

async function finish(
  interchange: Interchange,
  open: OpenInterchange,
  input: EdiTranslationInput,
): Promise<Extract<EdiEvent, { type: 'interchange' }>> {
  const { outcome } = open;
  const note = outcome.duplicate ? '025' : outcome.refused ? '006' : ta1NoteCode(interchange);
  let refusedAtEnd = false;
  if (note && !outcome.refused) {
    outcome.refused = true;
    outcome.reason = envelopeErrorsOf(interchange, open).map(describe).join('; ');
    refusedAtEnd = true;
  }
  // Acknowledgments are never acknowledged (X12 997 notes): an interchange of only 997s gets no 997.
  const onlyAcknowledgments = interchange.groups.length > 0 && !interchange.groups.some(answered);
  const answer997 = !outcome.refused && !onlyAcknowledgments;
  if (open.partsWritten && !answer997) {
    await input.acknowledgmentParts!.discard();
  }
  const ta1Asked = interchange.fields.acknowledgmentRequested.trim() === '1';
  if (onlyAcknowledgments && !outcome.refused && !ta1Asked) {
    return { type: 'interchange', outcome, refusedAtEnd };
  }
  const controlNumber = open.controlNumber ?? (await input.nextControlNumber());
  if (outcome.refused || onlyAcknowledgments) {
    // Refused, or 997s only, whose ISA14 asks for a TA1 (accepted: note 000) and gets nothing else.
    const acknowledgment: Acknowledgment = {
      kind: 'TA1',
      acknowledges: outcome.control,
      content: buildTA1(interchange, note, { ...acknowledgmentOptions(interchange, input), controlNumber }),
    };
    return { type: 'interchange', outcome, acknowledgment, refusedAtEnd };
  }
  const ack = open.ack!;
  if (!ack.started) {
    ack.begin(controlNumber);
  }
  ack.end();
  const acknowledgment: Acknowledgment = { kind: open.kind, acknowledges: outcome.control, content: ack.take() };
  return { type: 'interchange', outcome, acknowledgment, refusedAtEnd };
}

/** How an interchange is answered, but for the control number. */
function acknowledgmentOptions(
  interchange: Interchange,
  input: EdiTranslationInput,
): Omit<AcknowledgmentOptions, 'controlNumber'> {
  const settings = input.settings;
  const ourId = settings.acknowledgment?.interchangeId;
  return {
    // As the partner addressed us (ISA07/ISA08), unless the profile says how we answer.
    senderQualifier: ourId?.qualifier ?? (interchange.fields.receiverQualifier.trim() || 'ZZ'),
    senderId: ourId?.id ?? (interchange.fields.receiverId.trim() || 'DOCKBRIDGE'),
    date: input.now,
    // The partner's own separators: what the acknowledgment echoes of its interchange (ids, control
    // numbers, tags) cannot hold them, where it could hold ours (`KETTLE*SUP` sent with `|`).
    delimiters: interchange.delimiters,
    rejectSetsWithSegmentErrors: settings.rejectSetsWithSegmentErrors ?? false,
  };
}

/**
 * Everything wrong with an interchange's envelope, innermost first: a truncated file names each
 * structure it cut off (no SE, no GE, no IEA), not only the outermost.
 */
function envelopeErrorsOf(
  interchange: Interchange,
  open: OpenInterchange,
): Pick<Problem, 'message' | 'line' | 'column'>[] {
  const errors: Pick<Problem, 'message' | 'line' | 'column'>[] = [];
  for (const group of interchange.groups) {
    errors.push(...(open.cutOff.get(group) ?? []));
    errors.push(...group.problems.filter((p) => p.severity === 'error'));
  }
  if (open.cutOffMore > 0) {
    errors.push({ message: `${open.cutOffMore} more transaction set(s) have no SE` });
  }
  errors.push(...interchange.problems.filter((p) => p.severity === 'error'));
  return errors;
}
