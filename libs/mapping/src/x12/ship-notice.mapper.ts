import type { Load } from '@dockbridge/platform';
import { buildMapping, Purpose, quantity, TransactionMapping } from './document-builder';
import { DEFAULT_LOAD_TAG_QUALIFIERS, el, pickLoadTag, productIds } from './edi-fields';
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
  id: string;
  parent: string;
  level: string;
  position: number;
  /** The segments of this level's loop, HL excluded. */
  segments: EdiSegment[];
}

/**
 * 856 Ship Notice → one AdvanceShipNotice document: id BSN02, one load per item level (HL03 = I)
 * found by walking the HL01/HL02 parent pointers from the shipment, not by segment order.
 */
export function mapShipNotice(transaction: EdiTransaction, settings: EdiMappingSettings, directory: PartyDirectory): TransactionMapping {
  const control = transaction.envelope.transactionControl;
  const diagnostics: MappingDiagnostic[] = [];
  const error = (message: string, position?: number, tag?: string, element?: number) =>
    diagnostics.push({ level: 'error', transactionControl: control, message, ...(position && { segmentPosition: position, segmentTag: tag }), ...(element && { element }) });

  const bsnIndex = transaction.segments.findIndex((s) => s.tag === 'BSN');
  const bsn = transaction.segments[bsnIndex];
  if (!bsn) error('the 856 has no BSN segment');
  const code = el(bsn, 1);
  const purpose = PURPOSES[code];
  if (bsn && !purpose) error(`BSN01 purpose code ${JSON.stringify(code)} is not handled (00, 03, 05, 07)`, bsnIndex + 1, 'BSN', 1);

  const levels = hierarchicalLevels(transaction.segments);
  const byId = new Map(levels.map((l) => [l.id, l]));
  for (const level of levels) {
    if (byId.get(level.id) !== level) error(`HL01 ${level.id} is used twice`, level.position, 'HL', 1);
    if (level.parent && !byId.has(level.parent)) error(`HL02 parent ${level.parent} of HL ${level.id} does not exist`, level.position, 'HL', 2);
  }
  const children = new Map<string, HierarchicalLevel[]>();
  for (const level of levels) children.set(level.parent, [...(children.get(level.parent) ?? []), level]);

  const priority = settings.loadTagQualifiers ?? DEFAULT_LOAD_TAG_QUALIFIERS;
  const loads: Load[] = [];
  const visited = new Set<string>();
  const walk = (level: HierarchicalLevel) => {
    if (visited.has(level.id)) return error(`HL ${level.id} is its own ancestor`, level.position, 'HL', 2);
    visited.add(level.id);
    if (level.level === 'I') loads.push(...itemLoad(level, control, priority, settings, diagnostics));
    for (const child of children.get(level.id) ?? []) walk(child);
  };
  for (const root of children.get('') ?? []) walk(root);
  for (const level of levels) if (!visited.has(level.id) && level.level === 'I') error(`item HL ${level.id} is not under any shipment`, level.position, 'HL', 2);
  if (levels.length === 0) error('the 856 has no HL levels');

  return buildMapping(transaction, settings, directory, {
    documentId: el(bsn, 2),
    purpose: purpose?.purpose ?? 'upsert',
    statusName: purpose?.status ?? code,
    typeName: 'AdvanceShipNotice',
    loads,
    dates: SHIP_NOTICE_DATES,
    diagnostics,
  });
}

function hierarchicalLevels(segments: readonly EdiSegment[]): HierarchicalLevel[] {
  const levels: HierarchicalLevel[] = [];
  segments.forEach((segment, i) => {
    if (segment.tag === 'HL') levels.push({ id: el(segment, 1), parent: el(segment, 2), level: el(segment, 3), position: i + 1, segments: [] });
    else if (levels.length && segment.tag !== 'SE' && segment.tag !== 'CTT') levels[levels.length - 1].segments.push(segment);
  });
  return levels;
}

/** An item level's load: LIN ids, SN1 quantity (SN102), PID description. */
function itemLoad(level: HierarchicalLevel, control: string, priority: string[], settings: EdiMappingSettings, diagnostics: MappingDiagnostic[]): Load[] {
  const lin = level.segments.find((s) => s.tag === 'LIN');
  const sn1 = level.segments.find((s) => s.tag === 'SN1');
  if (!sn1) {
    diagnostics.push({ level: 'error', transactionControl: control, segmentPosition: level.position, segmentTag: 'HL', message: `item HL ${level.id} has no SN1 quantity` });
    return [];
  }
  const position = level.position + 1 + level.segments.indexOf(sn1);
  const qty = quantity(el(sn1, 2), { control, position, tag: 'SN1', element: 2 }, diagnostics);
  if (qty === undefined) return [];
  const tag = lin ? pickLoadTag(productIds(lin, 2), priority) : undefined;
  const description = el(level.segments.find((s) => s.tag === 'PID' && el(s, 5)), 5);
  return [{ name: description || tag || settings.defaultLoadName || 'Item', quantity: qty, ...(tag && { loadTag: tag }) }];
}
