/**
 * The X12 code lists an acknowledgment's segment and element notes are written with, by name, so
 * that whoever finds a problem (the reader, the envelope checks, a mapper) says which one it is.
 */

/** Table 723 (AK403 of a 997, IK403 of a 999): what is wrong with one data element. */
export const ELEMENT_ERROR = {
  mandatoryMissing: '1',
  conditionalRequiredMissing: '2',
  tooManyElements: '3',
  tooShort: '4',
  tooLong: '5',
  invalidCharacter: '6',
  invalidCodeValue: '7',
  invalidDate: '8',
  invalidTime: '9',
  exclusionViolated: '10',
  tooManyRepetitions: '12',
  tooManyComponents: '13',
} as const;
export type ElementErrorCode = (typeof ELEMENT_ERROR)[keyof typeof ELEMENT_ERROR];

/** Table 720 (AK304 of a 997, IK304 of a 999): what is wrong with one segment. */
export const SEGMENT_ERROR = {
  unrecognizedSegmentId: '1',
  unexpectedSegment: '2',
  mandatorySegmentMissing: '3',
  loopOverMaximum: '4',
  segmentOverMaximumUse: '5',
  notInTransactionSet: '6',
  notInProperSequence: '7',
  dataElementErrors: '8',
} as const;
export type SegmentErrorCode = (typeof SEGMENT_ERROR)[keyof typeof SEGMENT_ERROR];
