import type { EdiSegment } from './edi-types';

/** Element `n` (1-based) of a segment, trimmed; '' when absent. */
export const el = (segment: EdiSegment | undefined, n: number): string => {
  if (!segment) {
    return '';
  }
  return trimmed(segment.element(n));
};

/** `el` for a segment of which only element `n` is read (`EdiSegment.elementOnce`). */
export const elOnce = (segment: EdiSegment, n: number): string => trimmed(segment.elementOnce(n));

function trimmed(value: string): string {
  // Mappers read hundreds of elements per set and almost none is padded: only call trim() when an
  // end is not a printable ASCII character (nothing in '!'..'~' is white space).
  const last = value.length - 1;
  if (last < 0) {
    return value;
  }
  const a = value.charCodeAt(0);
  const b = value.charCodeAt(last);
  return a > 32 && a < 127 && b > 32 && b < 127 ? value : value.trim();
}

/** Qualifier/id pairs starting at element `from` (PO106/PO107, PO108/PO109, ... or LIN02/LIN03, ...). */
export function productIds(segment: EdiSegment, from: number): { qualifier: string; id: string }[] {
  const pairs: { qualifier: string; id: string }[] = [];
  for (let n = from, count = segment.elementCount; n < count; n += 2) {
    const qualifier = el(segment, n);
    const id = el(segment, n + 1);
    if (qualifier && id) {
      pairs.push({ qualifier, id });
    }
  }
  return pairs;
}

/** The id paired with `qualifier` in the qualifier/id pairs from element `from` (LIN*1*SK*A*PO*PO-7 → PO-7 for PO); '' when none. */
export function pairValue(segment: EdiSegment, from: number, qualifier: string): string {
  for (let n = from, count = segment.elementCount; n < count; n += 2) {
    if (el(segment, n) === qualifier) {
      return el(segment, n + 1);
    }
  }
  return '';
}

/**
 * What a syntax-note finding broke in the product ids of the line at `position` (pairs from
 * element `from` on), for a set accepted with errors: `PO107 missing (P0607)`; undefined when none.
 */
export function productIdError(
  errors: readonly { position: number; element: number; note?: string }[],
  position: number,
  tag: string,
  from: number,
): string | undefined {
  for (let i = 0; i < errors.length; i++) {
    const e = errors[i];
    if (e.position === position && e.element >= from) {
      return `${tag}${String(e.element).padStart(2, '0')} missing${e.note ? ` (${e.note})` : ''}, its product id dropped`;
    }
  }
  return undefined;
}

/** Default load-tag preference: the buyer's SKU, then vendor ids, then buyer/catalogue ids, then barcodes. */
export const DEFAULT_LOAD_TAG_QUALIFIERS = ['SK', 'VP', 'VN', 'VA', 'BP', 'IN', 'CB', 'UP', 'EN', 'UK'];

export function pickLoadTag(ids: { qualifier: string; id: string }[], priority: readonly string[]): string | undefined {
  for (const qualifier of priority) {
    const match = ids.find((p) => p.qualifier === qualifier);
    if (match) {
      return match.id;
    }
  }
  return ids[0]?.id;
}

/**
 * `pickLoadTag(productIds(segment, from), priority)` without building the pairs: the id of the
 * first pair whose qualifier ranks highest in `priority`, else of the first pair.
 */
export function loadTagOf(segment: EdiSegment, from: number, priority: readonly string[]): string | undefined {
  let first: string | undefined;
  let best: string | undefined;
  let bestRank = priority.length;
  for (let n = from, count = segment.elementCount; n < count; n += 2) {
    const qualifier = el(segment, n);
    if (!qualifier) {
      continue;
    }
    const id = el(segment, n + 1);
    if (!id) {
      continue;
    }
    first ??= id;
    const rank = priority.indexOf(qualifier);
    if (rank !== -1 && rank < bestRank) {
      bestRank = rank;
      best = id;
      if (rank === 0) {
        break;
      }
    }
  }
  return best ?? first;
}

/** CCYYMMDD (or YYMMDD) + optional HHMM[SS[D..]] as ISO 8601 UTC; undefined when not a real date. */
export function x12DateTime(date: string, time = '', endOfDay = false): string | undefined {
  // A file repeats the same few dates thousands of times: remember the answers (bounded).
  // Keys: the date alone, or length-prefixed date + time (one key per pair, whatever they hold).
  const cache = time === '' ? (endOfDay ? END_OF_DAY : START_OF_DAY) : endOfDay ? TIMED_END_OF_DAY : TIMED_START_OF_DAY;
  const key = time === '' ? date : `${date.length}:${date}${time}`;
  const known = cache.get(key);
  if (known !== undefined) {
    return known === INVALID ? undefined : known;
  }
  const value = parseX12DateTime(date, time, endOfDay);
  if (cache.size >= MAX_CACHED_DATES) {
    cache.clear();
  }
  cache.set(key, value ?? INVALID);
  return value;
}

const INVALID = '';
const MAX_CACHED_DATES = 1024;
const START_OF_DAY = new Map<string, string>();
const END_OF_DAY = new Map<string, string>();
const TIMED_START_OF_DAY = new Map<string, string>();
const TIMED_END_OF_DAY = new Map<string, string>();

function parseX12DateTime(date: string, time: string, endOfDay: boolean): string | undefined {
  const d = date.length === 6 ? `20${date}` : date;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(d);
  if (!m) {
    return undefined;
  }
  // HHMM, HHMMSS, HHMMSSD or HHMMSSDD (decimal seconds are dropped); anything else is no time at all.
  const t = time === '' ? null : /^(\d{2})(\d{2})(?:(\d{2})\d{0,2})?$/.exec(time);
  if (time !== '' && !t) {
    return undefined;
  }
  const [hh, mm, ss] = t ? [t[1], t[2], t[3] ?? '00'] : endOfDay ? ['23', '59', '59'] : ['00', '00', '00'];
  const iso = `${m[1]}-${m[2]}-${m[3]}T${hh}:${mm}:${ss}Z`;
  const parsed = new Date(iso);
  // Reject 20261331 and friends: Date rolls them over instead of failing.
  return Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 19) !== iso.slice(0, 19) ? undefined : iso;
}
