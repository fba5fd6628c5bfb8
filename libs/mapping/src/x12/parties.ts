import type { Direction, OrgRef } from '@dockbridge/platform';
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

export interface ResolvedParties {
  direction: Direction;
  occupant?: OrgRef;
  offsite?: OrgRef;
  carrier?: OrgRef;
  problems: string[];
}

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
  for (let k = 0, count = at ? at.length : segments.length; k < count; k++) {
    const segment = segments[at ? at[k] : k];
    if (segment.tag !== 'TD5' || el(segment, 2) !== '2') {
      continue;
    }
    const scac = el(segment, 3);
    if (scac) {
      return scac;
    }
  }
  return undefined;
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
  const problems: string[] = [];

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

  const scac = scacOf(segments, at?.td5);
  const carrier = scac
    ? (directory.byScac(scac) ?? { coreName: scacCoreName, coreId: scac })
    : toRef(parties.get('CA'), settings, directory, problems);
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
  problems: string[],
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
    problems.push(`N1*${party.entity} (segment ${party.position}) has neither an id (N104) nor a name (N102)`);
    return undefined;
  }
  return { coreName: settings.coreName, coreId };
}
