import type { DateRange } from '@dockbridge/platform';
import { ELEMENT_ERROR, type ElementErrorCode } from '@dockbridge/x12';
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

/** A DTM the window cannot be read from: the segment's position in the set, and the element at fault. */
export interface DateProblem {
  position: number;
  element: number;
  code: ElementErrorCode;
  value?: string;
  message: string;
}

export interface DatesResult {
  validDates?: DateRange;
  preferredDates?: DateRange;
  problems: DateProblem[];
}

/** DTM segments → validDates / preferredDates (ISO 8601 UTC; an end date without a time is the end of that day). */
export function datesOf(segments: readonly EdiSegment[], rules: DateRules, at?: readonly number[]): DatesResult {
  const problems: DatesResult['problems'] = [];
  const byQualifier = new Dtms();
  // `at`: the DTMs' indexes, when known (spares looking at every segment).
  for (let k = 0, count = at ? at.length : segments.length; k < count; k++) {
    const i = at ? at[k] : k;
    const segment = segments[i];
    if (segment.tag === 'DTM') {
      byQualifier.add(el(segment, 1), segment, i + 1);
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
    const endDtm = byQualifier.get(rules.validEnd.find((q) => byQualifier.has(q))!)!;
    // A real date, but not one the window can end on: the date is what is wrong (table 723: 8), in
    // DTM02 or, sent as a period, DTM06.
    const element = el(endDtm.segment, 2) === '' ? 6 : 2;
    problems.push({
      position: endDtm.position,
      element,
      code: ELEMENT_ERROR.invalidDate,
      value: el(endDtm.segment, element),
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

/**
 * The first DTM of each qualifier, in a set's few DTMs: a list searched by comparing strings beats
 * a Map here (each set's qualifiers are new strings, which a Map must hash).
 */
class Dtms {
  private readonly qualifiers: string[] = [];
  private readonly found: { segment: EdiSegment; position: number }[] = [];

  add(qualifier: string, segment: EdiSegment, position: number): void {
    if (!this.has(qualifier)) {
      this.qualifiers.push(qualifier);
      this.found.push({ segment, position });
    }
  }

  has(qualifier: string): boolean {
    return this.qualifiers.indexOf(qualifier) !== -1;
  }

  get(qualifier: string): { segment: EdiSegment; position: number } | undefined {
    const k = this.qualifiers.indexOf(qualifier);
    return k === -1 ? undefined : this.found[k];
  }
}

/** The date of the first of `qualifiers` sent with a valid date; each invalid one on the way is a problem. */
function firstDate(
  byQualifier: Dtms,
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
    const date = el(found.segment, 2);
    const time = el(found.segment, 3);
    const format = date === '' ? el(found.segment, 5) : '';
    if (format !== '') {
      // No DTM02: the date is a period (DTM05 its format, DTM06 the value), which R020305 allows.
      const period = periodDate(format, el(found.segment, 6), endOfDay);
      if (typeof period === 'string') {
        return period;
      }
      problems.push({ position: found.position, ...period(qualifier) });
      continue;
    }
    const value = x12DateTime(date, time, endOfDay);
    if (value) {
      return value;
    }
    problems.push({ position: found.position, ...whatIsWrong(qualifier, date, time) });
  }
  return undefined;
}

/** DTM05 formats a date is read from (table 1250): a day, a day and time, a range of days. */
const PERIOD_FORMATS = ['D8', 'D6', 'DT', 'RD8'];

/**
 * The date of DTM06 in the format DTM05 names (an end date: the range's last day, else the day's
 * end), or what is wrong with them: a format not read here (table 723: 7), a value not in it (8).
 */
function periodDate(
  format: string,
  period: string,
  endOfDay: boolean,
): string | ((qualifier: string) => Omit<DateProblem, 'position'>) {
  let value: string | undefined;
  if (format === 'D8' || format === 'D6') {
    value = period.length === (format === 'D8' ? 8 : 6) ? x12DateTime(period, '', endOfDay) : undefined;
  } else if (format === 'DT') {
    value = period.length >= 12 ? x12DateTime(period.slice(0, 8), period.slice(8), endOfDay) : undefined;
  } else if (format === 'RD8') {
    const [from, to, ...more] = period.split('-');
    value =
      more.length === 0 && from?.length === 8 && to?.length === 8 && x12DateTime(from) && x12DateTime(to) && from <= to
        ? x12DateTime(endOfDay ? to : from, '', endOfDay)
        : undefined;
  } else {
    return (qualifier) => ({
      element: 5,
      code: ELEMENT_ERROR.invalidCodeValue,
      value: format,
      message: `DTM*${qualifier} gives its date in format ${JSON.stringify(format)} (DTM05), which is not read: ${PERIOD_FORMATS.join(', ')} are`,
    });
  }
  return (
    value ??
    ((qualifier) => ({
      element: 6,
      code: ELEMENT_ERROR.invalidDate,
      value: period,
      message: `DTM*${qualifier} has an invalid date period ${JSON.stringify(period)} (${format} expected)`,
    }))
  );
}

/**
 * Why DTM02/DTM03 make no date, in the terms of X12 table 723: DTM02 is conditional (R020305, with DTM03 and DTM05),
 * CCYYMMDD (YYMMDD accepted); DTM03 is HHMM[SS[D[D]]].
 */
function whatIsWrong(qualifier: string, date: string, time: string): Omit<DateProblem, 'position'> {
  const dtm = `DTM*${qualifier}`;
  if (date === '') {
    return {
      element: 2,
      code: ELEMENT_ERROR.conditionalRequiredMissing,
      message: `${dtm} has no date (DTM02, or DTM05 and DTM06)`,
    };
  }
  const onlyDigits = /^\d+$/;
  const badDate = (code: ElementErrorCode, why: string) => ({
    element: 2,
    code,
    value: date,
    message: `${dtm} has an invalid date ${JSON.stringify(date)} (${why})`,
  });
  if (!onlyDigits.test(date)) {
    return badDate(ELEMENT_ERROR.invalidDate, 'CCYYMMDD expected');
  }
  if (date.length < 8 && date.length !== 6) {
    return badDate(ELEMENT_ERROR.tooShort, 'too short: CCYYMMDD expected');
  }
  if (date.length > 8) {
    return badDate(ELEMENT_ERROR.tooLong, 'too long: CCYYMMDD expected');
  }
  if (x12DateTime(date) === undefined) {
    return badDate(ELEMENT_ERROR.invalidDate, 'CCYYMMDD expected');
  }
  const badTime = (code: ElementErrorCode, why: string) => ({
    element: 3,
    code,
    value: time,
    message: `${dtm} has an invalid time ${JSON.stringify(time)} (${why})`,
  });
  if (onlyDigits.test(time) && time.length < 4) {
    return badTime(ELEMENT_ERROR.tooShort, 'too short: HHMM[SS] expected');
  }
  if (onlyDigits.test(time) && time.length > 8) {
    return badTime(ELEMENT_ERROR.tooLong, 'too long: HHMM[SS] expected');
  }
  return badTime(ELEMENT_ERROR.invalidTime, 'HHMM[SS] expected');
}
