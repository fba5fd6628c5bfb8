import type { Direction, OrgRef } from '@dockbridge/platform';
import { ELEMENT_ERROR, type ElementErrorCode } from '@dockbridge/x12';
import { el } from './edi-fields';
import type { EdiMappingSettings, EdiSegment, PartyDirectory } from './edi-types';

/** One N1 loop's party: entity code (ST, SF, ...), name, id qualifier and id. */
export interface EdiParty {
  entity: string;
  name: string;
  qualifier: string;
  code: string;
  position: number;
}

/** Parties in the order the ship-from side is looked for: ship from, shipper, vendor, supplier, selling party. */
const SHIP_FROM_ENTITIES = ['SF', 'SH', 'VN', 'SU', 'SE'];

export interface PartyProblem {
  message: string;
  /** The segment's position in the set (ST = 1) and the element at fault, with its table 723 code. */
  position: number;
  element: number;
  code: ElementErrorCode;
  value?: string;
}

export interface ResolvedParties {
  direction: Direction;
  occupant?: OrgRef;
  offsite?: OrgRef;
  carrier?: OrgRef;
  problems: PartyProblem[];
}

/** N103 = 2: the N104 is a Standard Carrier Alpha Code, the same id a TD5 gives in TD503. */
const SCAC_QUALIFIER = '2';

/** The first N1 of each entity code, with its position in the set. `at`: the N1s' indexes, when known. */
export function partiesOf(segments: readonly EdiSegment[], at?: readonly number[]): Map<string, EdiParty> {
  const parties = new Map<string, EdiParty>();
  for (let k = 0, count = at ? at.length : segments.length; k < count; k++) {
    const i = at ? at[k] : k;
    const segment = segments[i];
    if (segment.tag !== 'N1') {
      continue;
    }
    const entity = el(segment, 1);
    if (entity && !parties.has(entity)) {
      parties.set(entity, {
        entity,
        name: el(segment, 2),
        qualifier: el(segment, 3),
        code: el(segment, 4),
        position: i + 1,
      });
    }
  }
  return parties;
}

/** SCAC of the first TD5 whose id qualifier (TD502) is 2 (Standard Carrier Alpha Code). `at`: the TD5s' indexes, when known. */
export function scacOf(segments: readonly EdiSegment[], at?: readonly number[]): string | undefined {
  return scacSegmentOf(segments, at)?.scac;
}

function scacSegmentOf(
  segments: readonly EdiSegment[],
  at?: readonly number[],
): { scac: string; position: number } | undefined {
  for (let k = 0, count = at ? at.length : segments.length; k < count; k++) {
    const i = at ? at[k] : k;
    const segment = segments[i];
    if (segment.tag !== 'TD5' || el(segment, 2) !== '2') {
      continue;
    }
    const scac = el(segment, 3);
    if (scac) {
      return { scac, position: i + 1 };
    }
  }
  return undefined;
}

/**
 * A SCAC is 2 to 4 characters: anything else names no carrier. In TD503 (element 140, ID 2/4) the
 * element itself is too short or too long; N104 (AN 2/80) may hold 5 characters, so there the value
 * is a code that is no SCAC (table 723: 7), and one character is too short for N104 as well.
 */
function scacProblem(scac: string, position: number, element: number, where: string): PartyProblem | undefined {
  if (scac.length >= 2 && scac.length <= 4) {
    return undefined;
  }
  const short = scac.length < 2;
  return {
    message: `${where} SCAC ${JSON.stringify(scac)} is too ${short ? 'short' : 'long'} (2 to 4 characters)`,
    position,
    element,
    code: short ? ELEMENT_ERROR.tooShort : where === 'TD503' ? ELEMENT_ERROR.tooLong : ELEMENT_ERROR.invalidCodeValue,
    value: scac,
  };
}

/** The party is named (N104 or N102) by one of the location's codes. */
function isLocation(party: EdiParty | undefined, codes: readonly string[]): boolean {
  if (!party) {
    return false;
  }
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] === party.code || codes[i] === party.name) {
      return true;
    }
  }
  return false;
}

/**
 * Parties → OrgRefs (ship-to: N1*ST, else N1*BY). The directory wins; otherwise a party is `{coreName: <partner's scheme>,
 * coreId: N104, else N102}`. The location is the ship-to of an Inbound document and the ship-from of
 * an Outbound one: the direction is decided by which side carries one of the partner's location codes.
 */
export function resolveParties(
  segments: readonly EdiSegment[],
  settings: EdiMappingSettings,
  directory: PartyDirectory,
  scacCoreName = 'SCAC',
  /** Where the set's N1 and TD5 segments are, when known. */
  at?: { n1: readonly number[]; td5: readonly number[] },
): ResolvedParties {
  const parties = partiesOf(segments, at?.n1);
  const problems: PartyProblem[] = [];

  // A retailer's PO may name its DC only as the buying party (N1*BY) when it has no N1*ST.
  const shipTo = parties.get('ST') ?? parties.get('BY');
  let shipFrom: EdiParty | undefined;
  for (let i = 0; i < SHIP_FROM_ENTITIES.length && !shipFrom; i++) {
    shipFrom = parties.get(SHIP_FROM_ENTITIES[i]);
  }
  const codes = settings.locationCodes ?? [];
  const direction: Direction =
    isLocation(shipFrom, codes) && !isLocation(shipTo, codes)
      ? 'Outbound'
      : isLocation(shipTo, codes)
        ? 'Inbound'
        : (settings.defaultDirection ?? 'Inbound');
  const occupantParty = direction === 'Inbound' ? shipTo : shipFrom;
  const offsiteParty = direction === 'Inbound' ? shipFrom : shipTo;

  // The carrier is one organisation however it is named: a SCAC from TD5, or from N1*CA with N103 = 2,
  // is `{coreName: "SCAC", coreId}` or its directory entry; any other N1*CA is a party like the others.
  let carrier: OrgRef | undefined;
  const td5 = scacSegmentOf(segments, at?.td5);
  const ca = parties.get('CA');
  const scac = td5
    ? { scac: td5.scac, position: td5.position, element: 3, where: 'TD503' }
    : ca && ca.qualifier === SCAC_QUALIFIER && ca.code
      ? { scac: ca.code, position: ca.position, element: 4, where: 'N1*CA' }
      : undefined;
  if (scac) {
    const problem = scacProblem(scac.scac, scac.position, scac.element, scac.where);
    if (problem) {
      problems.push(problem);
    } else {
      carrier = directory.byScac(scac.scac) ?? { coreName: scacCoreName, coreId: scac.scac };
    }
  } else {
    carrier = toRef(ca, settings, directory, problems);
  }
  return {
    direction,
    occupant: toRef(occupantParty, settings, directory, problems),
    offsite: toRef(offsiteParty, settings, directory, problems),
    carrier,
    problems,
  };
}

/** A party's OrgRef: the directory's, else the partner's scheme with N104 (else N102); a problem when it has neither. */
function toRef(
  party: EdiParty | undefined,
  settings: EdiMappingSettings,
  directory: PartyDirectory,
  problems: PartyProblem[],
): OrgRef | undefined {
  if (!party) {
    return undefined;
  }
  const known = party.qualifier && party.code ? directory.byCode(party.qualifier, party.code) : undefined;
  if (known) {
    return known;
  }
  const coreId = party.code || party.name;
  if (!coreId) {
    // N1's syntax note R0203: one of N102 and N104 is required.
    problems.push({
      message: `N1*${party.entity} (segment ${party.position}) has neither an id (N104) nor a name (N102)`,
      position: party.position,
      element: 2,
      code: ELEMENT_ERROR.conditionalRequiredMissing,
    });
    return undefined;
  }
  return { coreName: settings.coreName, coreId };
}
