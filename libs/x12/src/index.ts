/**
 * @dockbridge/x12: a streaming X12 reader (delimiters from each ISA, constant memory, every
 * problem located), envelope validation, and 997/TA1 acknowledgments. Pure: no Nest, no I/O
 * beyond consuming the stream it is given.
 */
export * from './x12.types';
export { X12Tokenizer, DEFAULT_MAX_SEGMENT_LENGTH, printable, type TokenizerSink } from './tokenizer';
export { DEFAULT_MAX_SET_CHARS, DEFAULT_MAX_SET_SEGMENTS, EnvelopeReader, summaryOf } from './envelope.reader';
export {
  ISA_WIDTHS,
  interchangeKey,
  isaFields,
  parseCount,
  sameControl,
  INTERCHANGE_ID_QUALIFIER,
  validateGroupHeader,
  validateGroupTrailer,
  validateInterchangeTrailer,
  validateIsa,
  validateSetHeader,
  validateSetTrailer,
} from './envelope.validation';
export { SYNTAX_NOTES, checkSyntaxNotes } from './syntax-notes';
export { forgetScannedSegment } from './segment';
export {
  readX12,
  parseX12,
  tokenizeX12,
  element,
  components,
  repetitions,
  type X12StreamOptions,
  type X12Chunk,
} from './reader';
export { ELEMENT_ERROR, SEGMENT_ERROR, type ElementErrorCode, type SegmentErrorCode } from './acknowledgment-codes';
export {
  acknowledgeGroup,
  acknowledgeGroupOf,
  acknowledgeSet,
  answered,
  FunctionalAcknowledgmentWriter,
  build997,
  build999,
  IMPLEMENTATION_ACKNOWLEDGMENT_GUIDE,
  buildTA1,
  ta1NoteCode,
  type AcknowledgmentOptions,
  type ElementError,
  type GroupAcknowledgment,
  type GroupStatus,
  type SegmentError,
  type SetAcknowledgment,
  type SetStatus,
  type SetTally,
} from './acknowledgment';
