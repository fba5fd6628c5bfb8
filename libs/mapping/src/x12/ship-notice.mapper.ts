import type { Load } from '@dockbridge/platform';
import { ELEMENT_ERROR, type ElementErrorCode, SEGMENT_ERROR } from '@dockbridge/x12';
import {
  buildMapping,
  MAX_DOCUMENT_ID,
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

interface HierarchicalLevel {
  segment: EdiSegment;
  /** HL01 and HL02 as text, trimmed: only read (and filled in by `identify`) when the levels are walked. */
  id: string;
  parent: string;
  /** HL01 and HL02 as numbers (Segment.wholeNumber: 0 empty, -1 not a plain number), read without slicing: the usual layout needs nothing else. */
  idNumber: number;
  parentNumber: number;
  level: string;
  position: number;
  /**
   * What an item level's load is read from, found while the set is indexed (its loop is the
   * segments after its HL up to the next HL, SE and CTT excluded): the first LIN, the first SN1 and
   * its offset in that loop, the description (PID05) of the first PID that has one.
   */
  lin?: EdiSegment;
  linOffset: number;
  sn1?: EdiSegment;
  sn1Offset: number;
  description: string;
  /** An order level's order number (PRF01 of its loop). */
  order: string;
}

/** What the item levels' loads are added to, with what they need to be read. */
interface ItemLoads {
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
  /** The level an item's order is looked up from (its parent), found the way the walk finds it. */
  parentOf: (level: HierarchicalLevel) => HierarchicalLevel | undefined;
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
  const shared = new SharedSegments();
  let bsnIndex = -1;
  const levels: HierarchicalLevel[] = [];
  let current: HierarchicalLevel | undefined;
  let offset = 0;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const tag = segment.tag;
    if (tag === 'HL') {
      current = {
        segment,
        id: '',
        parent: '',
        idNumber: segment.wholeNumber(1),
        parentNumber: segment.wholeNumber(2),
        level: elOnce(segment, 3),
        position: i + 1,
        lin: undefined,
        linOffset: 0,
        sn1: undefined,
        sn1Offset: 0,
        description: '',
        order: '',
      };
      levels.push(current);
      offset = 0;
      continue;
    }
    if (bsnIndex === -1 && tag === 'BSN') {
      bsnIndex = i;
    }
    shared.note(tag, i);
    if (current && tag !== 'SE' && tag !== 'CTT') {
      if (current.level === 'I') {
        if (tag === 'LIN') {
          if (!current.lin) {
            current.lin = segment;
            current.linOffset = offset;
          }
        } else if (tag === 'SN1') {
          if (!current.sn1) {
            current.sn1 = segment;
            current.sn1Offset = offset;
          }
        } else if (tag === 'PID' && !current.description) {
          current.description = elOnce(segment, 5);
        }
      } else if (tag === 'PRF' && current.level === 'O' && !current.order) {
        current.order = elOnce(segment, 1);
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
  } else if (documentId.length > MAX_DOCUMENT_ID) {
    errorAt(
      diagnostics,
      control,
      `the document id ${JSON.stringify(documentId.slice(0, 20))}… is longer than ${MAX_DOCUMENT_ID} characters`,
      bsnIndex + 1,
      'BSN',
      2,
      ELEMENT_ERROR.tooLong,
      documentId,
    );
  }

  const priority = settings.loadTagQualifiers ?? DEFAULT_LOAD_TAG_QUALIFIERS;
  const items: ItemLoads = {
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
    parentOf: () => undefined,
  };
  itemLoads(levels, items);
  if (levels.length === 0) {
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: segments.length,
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
function itemLoads(levels: HierarchicalLevel[], out: ItemLoads): void {
  if (nestedInInputOrder(levels)) {
    // HL01 = 1, 2, 3 ...: a parent is found by its number.
    out.parentOf = (level) => (level.parentNumber > 0 ? levels[level.parentNumber - 1] : undefined);
    for (let i = 0; i < levels.length; i++) {
      if (levels[i].level === 'I') {
        addItemLoad(levels[i], out);
      }
    }
  } else {
    identify(levels);
    if (!walkNumbered(levels, out)) {
      walkById(levels, out);
    }
  }
}

/** Reads the levels' HL01 and HL02 as text, for the walks. */
function identify(levels: HierarchicalLevel[]): void {
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i];
    level.id = el(level.segment, 1);
    level.parent = el(level.segment, 2);
  }
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
  out.parentOf = (level) => (level.parent ? byId.get(level.parent) : undefined);
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
    if (level.level === 'I') {
      addItemLoad(level, out);
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
    if (!visited.has(level.id) && level.level === 'I') {
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
function nestedInInputOrder(levels: readonly HierarchicalLevel[]): boolean {
  const count = levels.length;
  // Indexes of the open levels, outermost first.
  const open: number[] = [];
  for (let i = 0; i < count; i++) {
    const level = levels[i];
    // Ids not written as plain numbers (padded, say) are left to the walks, which read them as text.
    if (level.idNumber !== i + 1) {
      return false;
    }
    if (level.parentNumber === 0) {
      open.length = 0;
    } else {
      const parent = level.parentNumber - 1;
      if (parent < 0 || parent >= count) {
        return false;
      }
      while (open.length > 0 && open[open.length - 1] !== parent) {
        open.pop();
      }
      if (open.length === 0) {
        return false;
      }
    }
    open.push(i);
  }
  return true;
}

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
  out.parentOf = (level) => {
    const parent = parents[numbered(level.id, count)];
    return parent === undefined || parent === -1 ? undefined : levels[parent];
  };
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
    if (level.level === 'I') {
      addItemLoad(level, out);
    }
    pushChildren(i);
  }
  for (let i = 0; i < count; i++) {
    const level = levels[i];
    if (!visited[i] && level.level === 'I') {
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
 * order level, else a PO number in its LIN) as the document attribute `load<N>Order`, so that two
 * loads of one product from different orders can be told apart.
 */
function addItemLoad(level: HierarchicalLevel, out: ItemLoads): void {
  const { control, priority, settings, diagnostics } = out;
  const { lin, sn1 } = level;
  if (!sn1) {
    // A segment the item loop must have (table 720: 3), named where its loop begins.
    diagnostics.push({
      level: 'error',
      transactionControl: control,
      segmentPosition: level.position + 1,
      segmentTag: 'SN1',
      segmentCode: SEGMENT_ERROR.mandatorySegmentMissing,
      message: `item HL ${el(level.segment, 1)} has no SN1 quantity`,
    });
    return;
  }
  const raw = el(sn1, 2);
  const qty =
    quantityValue(raw) ??
    quantity(raw, { control, position: level.position + 1 + level.sn1Offset, tag: 'SN1', element: 2 }, diagnostics);
  if (qty === undefined) {
    return;
  }
  const tag = lin ? loadTagOf(lin, 2, priority) : undefined;
  const description = level.description;
  const load: Load = { name: description || tag || settings.defaultLoadName || 'Item', quantity: qty };
  if (tag) {
    load.loadTag = tag;
  }
  out.loads.push(load);
  const order = orderOf(level, out) || (lin ? pairValue(lin, 2, 'PO') : '');
  const n = out.loads.length;
  if (order !== out.runOrder || out.runTo !== n - 1) {
    endRun(out);
    out.runOrder = order;
    out.runFrom = n;
  }
  out.runTo = n;
  if (lin && out.elementErrors) {
    const lost = productIdError(out.elementErrors, level.position + 1 + level.linOffset, 'LIN', 2);
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
function orderOf(level: HierarchicalLevel, out: ItemLoads): string {
  let at = out.parentOf(level);
  for (let steps = 0; at && steps < 64; steps++) {
    if (at.level === 'O') {
      return at.order;
    }
    at = out.parentOf(at);
  }
  return '';
}
