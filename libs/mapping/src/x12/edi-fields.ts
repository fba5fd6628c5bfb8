import type { EdiSegment } from './edi-types';

/** Element `n` (1-based) of a segment, trimmed; '' when absent. */
export const el = (segment: EdiSegment | undefined, n: number): string => (segment?.elements[n - 1] ?? '').trim();

/** Qualifier/id pairs starting at element `from` (PO106/PO107, PO108/PO109, ... or LIN02/LIN03, ...). */
export function productIds(segment: EdiSegment, from: number): { qualifier: string; id: string }[] {
  const pairs: { qualifier: string; id: string }[] = [];
  for (let n = from; n < segment.elements.length; n += 2) {
    const qualifier = el(segment, n);
    const id = el(segment, n + 1);
    if (qualifier && id) pairs.push({ qualifier, id });
  }
  return pairs;
}

/** Default load-tag preference: the buyer's SKU, then vendor ids, then buyer/catalogue ids, then barcodes. */
export const DEFAULT_LOAD_TAG_QUALIFIERS = ['SK', 'VP', 'VN', 'VA', 'BP', 'IN', 'CB', 'UP', 'EN', 'UK'];

export function pickLoadTag(ids: { qualifier: string; id: string }[], priority: readonly string[]): string | undefined {
  for (const qualifier of priority) {
    const match = ids.find((p) => p.qualifier === qualifier);
    if (match) return match.id;
  }
  return ids[0]?.id;
}

/** CCYYMMDD (or YYMMDD) + optional HHMM[SS[D..]] as ISO 8601 UTC; undefined when not a real date. */
export function x12DateTime(date: string, time = '', endOfDay = false): string | undefined {
  const d = date.length === 6 ? `20${date}` : date;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(d);
  if (!m) return undefined;
  const t = /^(\d{2})(\d{2})(\d{2})?/.exec(time);
  const [hh, mm, ss] = t ? [t[1], t[2], t[3] ?? '00'] : endOfDay ? ['23', '59', '59'] : ['00', '00', '00'];
  const iso = `${m[1]}-${m[2]}-${m[3]}T${hh}:${mm}:${ss}Z`;
  const parsed = new Date(iso);
  // Reject 20261331 and friends: Date rolls them over instead of failing.
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 19) !== iso.slice(0, 19) ? undefined : iso;
}
