import type { DateRange } from '@dockbridge/platform';
import { el, x12DateTime } from './edi-fields';
import type { EdiSegment } from './edi-types';

export interface DateRules {
  /** DTM qualifiers for the bookable window's begin and end, in order of preference. */
  validBegin: string[];
  validEnd: string[];
  /** DTM qualifiers of a preferred day. */
  preferred: string[];
}

/** 850: ship not before/no later (037/038), else do not deliver before/after (064/063); requested delivery/ship (002/010/068). */
export const PURCHASE_ORDER_DATES: DateRules = {
  validBegin: ['037', '064'],
  validEnd: ['038', '063'],
  preferred: ['002', '010', '068'],
};
/** 856: shipped (011) to estimated or scheduled delivery (017/067). */
export const SHIP_NOTICE_DATES: DateRules = {
  validBegin: ['011'],
  validEnd: ['017', '067'],
  preferred: ['002', '010', '068'],
};

export interface DatesResult {
  validDates?: DateRange;
  preferredDates?: DateRange;
  problems: { position: number; message: string }[];
}

/** DTM segments → validDates / preferredDates (ISO 8601 UTC; an end date without a time is the end of that day). */
export function datesOf(segments: readonly EdiSegment[], rules: DateRules, at?: readonly number[]): DatesResult {
  const problems: DatesResult['problems'] = [];
  const byQualifier = new Map<string, { segment: EdiSegment; position: number }>();
  // `at`: the DTMs' indexes, when known (spares looking at every segment).
  for (let k = 0, count = at ? at.length : segments.length; k < count; k++) {
    const i = at ? at[k] : k;
    const segment = segments[i];
    if (segment.tag !== 'DTM') {
      continue;
    }
    const qualifier = el(segment, 1);
    if (!byQualifier.has(qualifier)) {
      byQualifier.set(qualifier, { segment, position: i + 1 });
    }
  }
  const begin = firstDate(byQualifier, rules.validBegin, false, problems);
  const end = firstDate(byQualifier, rules.validEnd, true, problems);
  const preferredBegin = firstDate(byQualifier, rules.preferred, false, problems);
  const result: DatesResult = { problems };
  if (begin || end) {
    // Property by property, not by spreading optional parts (same keys, same order): this runs per set.
    const validDates: DateRange = {};
    if (begin) {
      validDates.begin = begin;
    }
    if (end) {
      validDates.end = end;
    }
    result.validDates = validDates;
  }
  if (begin && end && end < begin) {
    problems.push({
      position: byQualifier.get(rules.validEnd.find((q) => byQualifier.has(q))!)!.position,
      message: `the valid window ends (${end}) before it begins (${begin})`,
    });
  }
  if (preferredBegin) {
    result.preferredDates = {
      begin: preferredBegin,
      end:
        preferredBegin.slice(0, 10) + (preferredBegin.endsWith('T00:00:00Z') ? 'T23:59:59Z' : preferredBegin.slice(10)),
    };
  }
  return result;
}

/** The date of the first of `qualifiers` sent with a valid date; each invalid one on the way is a problem. */
function firstDate(
  byQualifier: Map<string, { segment: EdiSegment; position: number }>,
  qualifiers: string[],
  endOfDay: boolean,
  problems: DatesResult['problems'],
): string | undefined {
  for (let i = 0; i < qualifiers.length; i++) {
    const qualifier = qualifiers[i];
    const found = byQualifier.get(qualifier);
    if (!found) {
      continue;
    }
    const value = x12DateTime(el(found.segment, 2), el(found.segment, 3), endOfDay);
    if (value) {
      return value;
    }
    problems.push({
      position: found.position,
      message: `DTM*${qualifier} has an invalid date ${JSON.stringify(el(found.segment, 2))} (CCYYMMDD expected)`,
    });
  }
  return undefined;
}
