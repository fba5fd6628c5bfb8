import type { Load } from '@dockbridge/platform';
import { ELEMENT_ERROR, type ElementErrorCode, SEGMENT_ERROR } from '@dockbridge/x12';
import {
  buildMapping,
  documentIdProblem,
  Purpose,
  quantity,
  quantityValue,
  SharedSegments,
  TransactionMapping,
} from './document-builder';
import { DEFAULT_LOAD_TAG_QUALIFIERS, el, elOnce, loadTagOf, pairValue, productIdError } from './edi-fields';
import { SHIP_NOTICE_DATES } from './dates';
import type { EdiMappingSettings, EdiSegment, EdiTransaction, MappingDiagnostic, PartyDirectory } from './edi-types';

/** BSN01 purpose → what to do with the document, and its status name. */
const PURPOSES: Record<string, { purpose: Purpose; status: string }> = {
  '00': { purpose: 'upsert', status: 'Original' },
  '05': { purpose: 'upsert', status: 'Replace' },
  '03': { purpose: 'delete', status: 'Delete' },
  '07': { purpose: 'duplicate', status: 'Duplicate' },
};

/** HL03 of a level, as the mapping tells levels apart. */
const OTHER = 0;
const ITEM = 1; // "I"
const ORDER = 2; // "O"

/**
 * The HL levels of the set being mapped, by level number k (0-based, input order), in arrays
 * reused from set to set (no object per level): the HL's row, HL01 and HL02 as numbers
 * (hierarchicalLevel: 0 empty, -1 not a plain number; the usual layout needs nothing else), its kind,
 * and what an item level's load is read from, found while the set is indexed (its loop is the
 * segments after its HL up to the next HL, SE and CTT excluded): the first LIN, the first SN1 and their
 * offsets in that loop, the description (PID05) of the first PID that has one; an order level's
 * order number (the first PRF01 that has one).
 */
class Levels {
  count = 0;
  row = new Int32Array(256);
  idNumber = new Int32Array(256);
  parentNumber = new Int32Array(256);
  kind = new Int32Array(256);
  lin = new Int32Array(256);
  linOffset = new Int32Array(256);
  sn1 = new Int32Array(256);
  sn1Offset = new Int32Array(256);
  /** Whether `texts[k]` holds the level's description (items) or order (orders). */
  hasText = new Int32Array(256);
  texts: string[] = [];

  add(row: number, idNumber: number, parentNumber: number, kind: number): number {
    const k = this.count++;
    if (k === this.row.length) {
      this.grow();
    }
    this.row[k] = row;
    this.idNumber[k] = idNumber;
    this.parentNumber[k] = parentNumber;
    this.kind[k] = kind;
    this.lin[k] = -1;
    this.sn1[k] = -1;
    this.hasText[k] = 0;
    return k;
  }

  text(k: number): string {
    return this.hasText[k] === 1 ? this.texts[k] : '';
  }

  private grow(): void {
    const size = this.row.length * 2;
    const bigger = (a: Int32Array) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    };
    this.row = bigger(this.row);
    this.idNumber = bigger(this.idNumber);
    this.parentNumber = bigger(this.parentNumber);
    this.kind = bigger(this.kind);
    this.lin = bigger(this.lin);
    this.linOffset = bigger(this.linOffset);
    this.sn1 = bigger(this.sn1);
    this.sn1Offset = bigger(this.sn1Offset);
    this.hasText = bigger(this.hasText);
  }
}

/** The mapper runs one set at a time, start to end (nothing in it waits): one Levels for all. */
const LEVELS = new Levels();

/** HL01, HL02 and HL03 of the HL read last (EdiSegment.hierarchicalLevel). */
const HL = new Int32Array(3);

/** A padded or unusual HL03 as hierarchicalLevel's code: " I" is I (73); anything longer is no level code (0). */
function levelCode(code: string): number {
  return code.length === 1 ? code.charCodeAt(0) : 0;
}

/** A level as the walks for unusual numberings read it (HL01 and HL02 as text, trimmed). */
interface HierarchicalLevel {
  k: number;
  id: string;
  parent: string;
  kind: number;
  /** The HL's position in the set (ST = 1). */
  position: number;
}

/** What the item levels' loads are added to, with what they need to be read. */
interface ItemLoads {
  segments: readonly EdiSegment[];
  levels: Levels;
  control: string;
  priority: readonly string[];
  settings: EdiMappingSettings;
  diagnostics: MappingDiagnostic[];
  loads: Load[];
  /**
   * The loads' orders as runs of consecutive loads (`1-24=PO-7001; 25-48=PO-7002`): one document
   * attribute, `loadOrders`, rather than one per load (a key per load costs a fifth of the mapping).
   */
  orderRuns: string;
  runOrder: string;
  runFrom: number;
  runTo: number;
  /** Syntax-note findings of the set (accepted with errors), and the loads whose product id they broke. */
  elementErrors: EdiTransaction['elementErrors'];
  productIdErrors: string[];
  /** The level (k) an item's order is looked up from (its parent; -1: none), found the way the walk finds it. */
  parents: number[] | undefined;
}

/** BSN02, the shipment id. */
export function shipNoticeId(bsn: EdiSegment): string {
  return el(bsn, 2);
}

/**
 * 856 Ship Notice → one AdvanceShipNotice document: id BSN02, one load per item level (HL03 = I)
 * found by walking the HL01/HL02 parent pointers from the shipment, not by segment order.
 */
export function mapShipNotice(
  transaction: EdiTransaction,
  settings: EdiMappingSettings,
  directory: PartyDirectory,
): TransactionMapping {
  const control = transaction.envelope.transactionControl;
  const diagnostics: MappingDiagnostic[] = [];

  // One pass over the set: the BSN, the HL levels with what their loads need, and the segments
  // buildMapping reads (parties, carrier, dates, references).
  const segments = transaction.segments;
  const count = segments.length;
  const shared = new SharedSegments();
  const levels = LEVELS;
  levels.count = 0;
  let bsnIndex = -1;
  let k = -1;
  let kind = OTHER;
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const segment = segments[i];
    const tag = segment.tag;
    if (tag === 'HL') {
      segment.hierarchicalLevel(HL);
      const code = HL[2] !== 0 ? HL[2] : levelCode(elOnce(segment, 3));
      kind = code === 73 ? ITEM : code === 79 ? ORDER : OTHER;
      k = levels.add(i, HL[0], HL[1], kind);
      offset = 0;
      continue;
    }
    if (bsnIndex === -1 && tag === 'BSN') {
      bsnIndex = i;
    }
    shared.note(tag, i);
    if (k !== -1 && tag !== 'SE' && tag !== 'CTT') {
      if (kind === ITEM) {
        if (tag === 'LIN') {
          if (levels.lin[k] === -1) {
            levels.lin[k] = i;
            levels.linOffset[k] = offset;
          }
        } else if (tag === 'SN1') {
          if (levels.sn1[k] === -1) {
            levels.sn1[k] = i;
            levels.sn1Offset[k] = offset;
          }
        } else if (tag === 'PID' && levels.hasText[k] === 0) {
          noteText(levels, k, elOnce(segment, 5));
        }
      } else if (tag === 'PRF' && kind === ORDER && levels.hasText[k] === 0) {
        noteText(levels, k, elOnce(segment, 1));
      }
      offset++;
    }
  }
  const bsn = segments[bsnIndex];
  if (!bsn) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: 2,
      segmentTag: 'BSN',
      segmentCode: SEGMENT_ERROR.mandatorySegmentMissing,
      message: 'the 856 has no BSN segment',
    });
  }
  const code = el(bsn, 1);
  const purpose = PURPOSES[code];
  if (bsn && !purpose) {
    errorAt(
      diagnostics,
      control,
      code
        ? `BSN01 purpose code ${JSON.stringify(code)} is not handled (00, 03, 05, 07)`
        : 'BSN01 (purpose code) is missing',
      bsnIndex + 1,
      'BSN',
      1,
      code ? ELEMENT_ERROR.invalidCodeValue : ELEMENT_ERROR.mandatoryMissing,
      code,
    );
  }
  const documentId = bsn ? shipNoticeId(bsn) : '';
  if (bsn && !documentId) {
    errorAt(
      diagnostics,
      control,
      'BSN02 (shipment id) is missing',
      bsnIndex + 1,
      'BSN',
      2,
      ELEMENT_ERROR.mandatoryMissing,
    );
  } else {
    const problem = documentIdProblem(documentId, documentId);
    if (problem) {
      errorAt(diagnostics, control, problem.message, bsnIndex + 1, 'BSN', 2, problem.code, problem.value);
    }
  }

  const priority = settings.loadTagQualifiers ?? DEFAULT_LOAD_TAG_QUALIFIERS;
  const items: ItemLoads = {
    segments,
    levels,
    control,
    priority,
    settings,
    diagnostics,
    loads: [],
    orderRuns: '',
    runOrder: '',
    runFrom: 0,
    runTo: 0,
    elementErrors: transaction.elementErrors,
    productIdErrors: [],
    parents: undefined,
  };
  itemLoads(items);
  if (levels.count === 0) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: count,
      segmentTag: 'HL',
      segmentCode: SEGMENT_ERROR.mandatorySegmentMissing,
      message: 'the 856 has no HL levels',
    });
  }

  return buildMapping(transaction, settings, directory, {
    documentId,
    purpose: purpose?.purpose ?? 'upsert',
    statusName: purpose?.status ?? code,
    typeName: 'AdvanceShipNotice',
    loads: items.loads,
    loadOrders: endRun(items),
    productIdErrors: items.productIdErrors,
    dates: SHIP_NOTICE_DATES,
    diagnostics,
    shared,
  });
}

/** A level's description (items) or order number (orders): the first one found that is not empty. */
function noteText(levels: Levels, k: number, text: string): void {
  if (text) {
    levels.texts[k] = text;
    levels.hasText[k] = 1;
  }
}

/** An error diagnostic, at a segment (position and tag) and element, with its table 723 code, when given. */
function errorAt(
  diagnostics: MappingDiagnostic[],
  control: string,
  message: string,
  position?: number,
  tag?: string,
  element?: number,
  code: ElementErrorCode = ELEMENT_ERROR.invalidCodeValue,
  value?: string,
): void {
  diagnostics.push({
    level: 'error',
    transactionControl: control,
    message,
    ...(position && { segmentPosition: position, segmentTag: tag }),
    ...(element && { element, code }),
    ...(element && value && { value }),
  });
}

/**
 * The item levels' loads, in the order of a depth-first walk from the roots (children in input
 * order), with what is wrong with the hierarchy. The usual layouts take a short way: levels nested
 * in input order need no walk, levels numbered 1, 2, 3 ... are found by index; any other
 * numbering is walked by id.
 */
function itemLoads(out: ItemLoads): void {
  const levels = out.levels;
  if (nestedInInputOrder(levels)) {
    // HL01 = 1, 2, 3 ...: a parent is found by its number.
    for (let k = 0; k < levels.count; k++) {
      if (levels.kind[k] === ITEM) {
        addItemLoad(k, out);
      }
    }
  } else {
    const walked = identify(out);
    if (!walkNumbered(walked, out)) {
      walkById(walked, out);
    }
  }
}

/** The levels with HL01 and HL02 read as text, for the walks. */
function identify(out: ItemLoads): HierarchicalLevel[] {
  const { levels, segments } = out;
  const walked: HierarchicalLevel[] = [];
  for (let k = 0; k < levels.count; k++) {
    const segment = segments[levels.row[k]];
    walked.push({ k, id: el(segment, 1), parent: el(segment, 2), kind: levels.kind[k], position: levels.row[k] + 1 });
  }
  return walked;
}
/** The general walk: levels by their HL01 ids, whatever they are. */
function walkById(levels: HierarchicalLevel[], out: ItemLoads): void {
  const { control, diagnostics } = out;
  // Ids used twice and parents that are not there are values this set cannot have (table 723: 7).
  const error = (message: string, position?: number, tag?: string, element?: number, value?: string) =>
    errorAt(diagnostics, control, message, position, tag, element, ELEMENT_ERROR.invalidCodeValue, value);
  const byId = new Map<string, HierarchicalLevel>();
  for (const level of levels) {
    byId.set(level.id, level);
  }
  const parents: number[] = [];
  for (const level of levels) {
    parents.push(level.parent ? (byId.get(level.parent)?.k ?? -1) : -1);
  }
  out.parents = parents;
  const children = new Map<string, HierarchicalLevel[]>();
  for (const level of levels) {
    if (byId.get(level.id) !== level) {
      error(`HL01 ${level.id} is used twice`, level.position, 'HL', 1, level.id);
    }
    if (level.parent && !byId.has(level.parent)) {
      error(`HL02 parent ${level.parent} of HL ${level.id} does not exist`, level.position, 'HL', 2, level.parent);
    }
    const siblings = children.get(level.parent);
    if (siblings) {
      siblings.push(level);
    } else {
      children.set(level.parent, [level]);
    }
  }
  const visited = new Set<string>();
  const walk = (level: HierarchicalLevel): void => {
    if (visited.has(level.id)) {
      error(`HL ${level.id} is its own ancestor`, level.position, 'HL', 2, level.parent);
      return;
    }
    visited.add(level.id);
    if (level.kind === ITEM) {
      addItemLoad(level.k, out);
    }
    const below = children.get(level.id);
    if (below) {
      for (let i = 0; i < below.length; i++) {
        walk(below[i]);
      }
    }
  };
  const roots = children.get('');
  if (roots) {
    for (let i = 0; i < roots.length; i++) {
      walk(roots[i]);
    }
  }
  for (const level of levels) {
    if (!visited.has(level.id) && level.kind === ITEM) {
      error(`item HL ${level.id} is not under any shipment`, level.position, 'HL', 2, level.parent);
    }
  }
}

/** `id` as a 0-based level index when it is written as a plain number 1..count ("7", not "07"); else -1. */
function numbered(id: string, count: number): number {
  const length = id.length;
  if (length === 0 || length > 9 || id.charCodeAt(0) === 48) {
    return -1;
  }
  let value = 0;
  for (let i = 0; i < length; i++) {
    const c = id.charCodeAt(i);
    if (c < 48 || c > 57) {
      return -1;
    }
    value = value * 10 + (c - 48);
  }
  return value <= count ? value - 1 : -1;
}

/**
 * The usual layout: HL01 = 1, 2, 3 ... in order and every HL02 empty or a level still open (the
 * level before, or one of its ancestors). Then ids are unique, every level is under a root, and
 * the depth-first walk (children in input order) visits the levels exactly in input order.
 */
function nestedInInputOrder(levels: Levels): boolean {
  const count = levels.count;
  const { idNumber, parentNumber } = levels;
  // Indexes of the open levels, outermost first.
  const open = OPEN;
  let depth = 0;
  for (let i = 0; i < count; i++) {
    // Ids not written as plain numbers (padded, say) are left to the walks, which read them as text.
    if (idNumber[i] !== i + 1) {
      return false;
    }
    if (parentNumber[i] === 0) {
      depth = 0;
    } else {
      const parent = parentNumber[i] - 1;
      if (parent < 0 || parent >= count) {
        return false;
      }
      while (depth > 0 && open[depth - 1] !== parent) {
        depth--;
      }
      if (depth === 0) {
        return false;
      }
    }
    open[depth++] = i;
  }
  return true;
}
const OPEN: number[] = [];

/**
 * The walk for the usual numbering: HL01 = 1, 2, 3 ... in order and every HL02 empty or one of
 * them. Then ids are unique and parents exist, so levels are found by index instead of by id
 * (no maps). The same walk as the general one: depth first from the roots, children in input
 * order, loads in visiting order, a level reached twice is its own ancestor, items never reached
 * are not under any shipment. Returns false, having done nothing, for any other numbering.
 */
function walkNumbered(levels: HierarchicalLevel[], out: ItemLoads): boolean {
  const { control, diagnostics } = out;
  const count = levels.length;
  const parents: number[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const level = levels[i];
    if (numbered(level.id, count) !== i) {
      return false;
    }
    if (level.parent === '') {
      parents[i] = -1;
    } else if ((parents[i] = numbered(level.parent, count)) === -1) {
      return false;
    }
  }
  // Children as linked lists in input order; index `count` is the virtual root ("" parent).
  const first: number[] = new Array(count + 1).fill(-1);
  const last: number[] = new Array(count + 1).fill(-1);
  const next: number[] = new Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    const p = parents[i] === -1 ? count : parents[i];
    if (first[p] === -1) {
      first[p] = i;
    } else {
      next[last[p]] = i;
    }
    last[p] = i;
  }
  // A level's index is its k (HL01 = k + 1), so its parent's index is its parent's k.
  out.parents = parents;
  const visited: boolean[] = new Array(count).fill(false);
  // Depth first, iteratively: a level's children are stacked in reverse to come off in order.
  const stack: number[] = [];
  const pushChildren = (p: number) => {
    const from = stack.length;
    for (let c = first[p]; c !== -1; c = next[c]) {
      stack.push(c);
    }
    for (let a = from, b = stack.length - 1; a < b; a++, b--) {
      const t = stack[a];
      stack[a] = stack[b];
      stack[b] = t;
    }
  };
  pushChildren(count);
  while (stack.length > 0) {
    const i = stack.pop()!;
    const level = levels[i];
    if (visited[i]) {
      diagnostics.push({
        level: 'error',
        transactionControl: control,
        message: `HL ${level.id} is its own ancestor`,
        segmentPosition: level.position,
        segmentTag: 'HL',
        element: 2,
        code: ELEMENT_ERROR.invalidCodeValue,
        value: level.parent,
      });
      continue;
    }
    visited[i] = true;
    if (level.kind === ITEM) {
      addItemLoad(level.k, out);
    }
    pushChildren(i);
  }
  for (let i = 0; i < count; i++) {
    const level = levels[i];
    if (!visited[i] && level.kind === ITEM) {
      diagnostics.push({
        level: 'error',
        transactionControl: control,
        message: `item HL ${level.id} is not under any shipment`,
        segmentPosition: level.position,
        segmentTag: 'HL',
        element: 2,
        code: ELEMENT_ERROR.invalidCodeValue,
        value: level.parent,
      });
    }
  }
  return true;
}

/**
 * An item level's load: LIN ids, SN1 quantity (SN102), PID description; its order (PRF01 of its
 * order level, else a PO number in its LIN) goes into the document attribute `loadOrders`, so that
 * two loads of one product from different orders can be told apart.
 */
function addItemLoad(k: number, out: ItemLoads): void {
  const { segments, levels, control, priority, settings, diagnostics } = out;
  const lin = levels.lin[k];
  const sn1 = levels.sn1[k];
  const position = levels.row[k] + 1;
  if (sn1 === -1) {
    // A segment the item loop must have (table 720: 3), named where its loop begins.
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: position + 1,
      segmentTag: 'SN1',
      segmentCode: SEGMENT_ERROR.mandatorySegmentMissing,
      message: `item HL ${el(segments[position - 1], 1)} has no SN1 quantity`,
    });
    return;
  }
  const raw = el(segments[sn1], 2);
  const qty =
    quantityValue(raw) ??
    quantity(raw, { control, position: position + 1 + levels.sn1Offset[k], tag: 'SN1', element: 2 }, diagnostics);
  if (qty === undefined) {
    return;
  }
  const tag = lin !== -1 ? loadTagOf(segments[lin], 2, priority) : undefined;
  const description = levels.text(k);
  const name = description || tag || settings.defaultLoadName || 'Item';
  // One literal either way (the same keys in the same order as adding loadTag after): one shape.
  out.loads.push(tag ? { name, quantity: qty, loadTag: tag } : { name, quantity: qty });
  const order = orderOf(k, out) || (lin !== -1 ? pairValue(segments[lin], 2, 'PO') : '');
  const n = out.loads.length;
  if (order !== out.runOrder || out.runTo !== n - 1) {
    endRun(out);
    out.runOrder = order;
    out.runFrom = n;
  }
  out.runTo = n;
  if (lin !== -1 && out.elementErrors) {
    const lost = productIdError(out.elementErrors, position + 1 + levels.linOffset[k], 'LIN', 2);
    if (lost) {
      out.productIdErrors.push(`load ${out.loads.length}: ${lost}`);
    }
  }
}

/** Adds the run of loads of one order read last to `orderRuns`; returns them all. */
function endRun(out: ItemLoads): string {
  if (out.runOrder) {
    const run = `${out.runFrom === out.runTo ? out.runFrom : `${out.runFrom}-${out.runTo}`}=${out.runOrder}`;
    out.orderRuns = out.orderRuns ? `${out.orderRuns}; ${run}` : run;
    out.runOrder = '';
  }
  return out.orderRuns;
}

/** PRF01 of the nearest order level above an item (a few steps: S/O/P/I, S/O/T/P/I). */
function orderOf(k: number, out: ItemLoads): string {
  const levels = out.levels;
  let at = parentOf(k, out);
  for (let steps = 0; at !== -1 && steps < 64; steps++) {
    if (levels.kind[at] === ORDER) {
      return levels.text(at);
    }
    at = parentOf(at, out);
  }
  return '';
}

/** The level above level k (-1: none): by HL02's number in the usual layout, else as the walk found it. */
function parentOf(k: number, out: ItemLoads): number {
  const parents = out.parents;
  if (parents === undefined) {
    const parent = out.levels.parentNumber[k];
    return parent > 0 ? parent - 1 : -1;
  }
  const parent = parents[k];
  return parent === undefined ? -1 : parent;
}
