import type { DocumentMode, Direction, OrgRef } from '@dockbridge/platform';
import type { ElementErrorCode, SegmentErrorCode } from '@dockbridge/x12';

/** The least a mapper needs of a segment (the reader's `Segment` is one): its tag and its elements by number. */
export interface EdiSegment {
  tag: string;
  /** Element n (1-based, as X12 numbers them) as sent; '' when absent. */
  element(n: number): string;
  /** The same as `element(n)`, for a segment of which only this element is read (no scan kept for more). */
  elementOnce(n: number): string;
  /** How many elements it has. */
  readonly elementCount: number;
  /**
   * An HL's HL01 and HL02 as positive whole numbers written plainly ("7", not "07" or " 7"; 0 when
   * empty or absent, -1 otherwise) and HL03's character code when it is one character (else 0), into `into`.
   */
  hierarchicalLevel(into: Int32Array): void;
}

/** Envelope facts a mapper copies into document attributes and diagnostics. */
export interface EdiEnvelope {
  senderId: string;
  receiverId: string;
  interchangeControl: string;
  groupControl: string;
  transactionControl: string;
  /** Separates the parts of a composite element (ISA16). */
  componentSeparator: string;
}

export interface EdiTransaction {
  /** ST01: 850, 856, ... */
  setId: string;
  envelope: EdiEnvelope;
  /** ST through SE. */
  segments: readonly EdiSegment[];
  /**
   * Syntax-note findings of a set accepted with errors (position in the set, ST = 1; element):
   * a load whose product id they broke says so in the document's attributes.
   */
  elementErrors?: readonly { position: number; element: number; note?: string }[];
}

/** Looks a party up in the partner's directory: by N1 qualifier + code, or by SCAC. */
export interface PartyDirectory {
  byCode(qualifier: string, code: string): OrgRef | undefined;
  byScac(scac: string): OrgRef | undefined;
}

export const EMPTY_DIRECTORY: PartyDirectory = { byCode: () => undefined, byScac: () => undefined };

/** Per-partner mapping settings (the partner profile's `edi` section). */
export interface EdiMappingSettings {
  /** The platform location the documents are stored at. */
  organisationId: string;
  /** `coreName` given to parties the directory does not know (the partner's naming scheme). */
  coreName: string;
  /** Codes (N104 / N102) by which this partner names the location: decide the direction. */
  locationCodes?: string[];
  /** Direction when neither ship-to nor ship-from is the location. */
  defaultDirection?: Direction;
  enableBaseOrgs?: boolean;
  selfCoreId?: string;
  documentSettings?: { mode?: DocumentMode; maxUses?: number };
  /** Load type name when a line gives no description. */
  defaultLoadName?: string;
  /** Product id qualifiers in order of preference for the load tag. */
  loadTagQualifiers?: string[];
  /** How this partner's interchanges are acknowledged. */
  acknowledgment?: EdiAcknowledgmentSettings;
  /** Reject (AK5 R, nothing delivered) sets with segment syntax errors instead of accepting them with errors (AK5 E). */
  rejectSetsWithSegmentErrors?: boolean;
}

export interface EdiAcknowledgmentSettings {
  /** `999` (implementation acknowledgment) for the partner's 5010 interchanges; default `997`. */
  kind?: '997' | '999';
  /** Our ISA05/ISA06 in acknowledgments; default: the qualifier and id the partner addressed (its ISA07/ISA08). */
  interchangeId?: { qualifier: string; id: string };
}

export type DiagnosticLevel = 'error' | 'warning';

/** A problem found while mapping, located by transaction and segment. */
export interface MappingDiagnostic {
  level: DiagnosticLevel;
  transactionControl: string;
  /** Position of the segment within its transaction set (ST = 1), when one is at fault. */
  segmentPosition?: number;
  segmentTag?: string;
  /** Element number (1-based) when one is at fault. */
  element?: number;
  /** What is wrong with that element: its X12 table 723 code, which the 997/999 reports (AK403/IK403). */
  code?: ElementErrorCode;
  /** What is wrong with the segment (table 720) when it is not "data element errors" (8): a missing segment is 3. */
  segmentCode?: SegmentErrorCode;
  /** The element's value as sent, when it is wrong rather than missing (AK404/IK404). */
  value?: string;
  message: string;
}
