import { TAG_SLOTS, tagSlot as segmentTagSlot } from './segment';
import type { Problem, Segment } from './x12.types';

/**
 * X12 syntax notes for the segments dockbridge maps (850/856), so a 997 can carry AK3/AK4 for
 * element errors without a full X12 dictionary. Each note is a letter + 2-digit element numbers:
 * P paired (any present -> all required), R required (at least one), E exclusion (at most one),
 * C conditional (first present -> all others required), L list conditional (first present ->
 * at least one other). Extend the table when a partner needs more.
 */
export const SYNTAX_NOTES: Readonly<Record<string, readonly string[]>> = {
  N1: ['R0203', 'P0304'],
  REF: ['R0203'],
  // Product/service id qualifier + id pairs.
  PO1: pairs(6, 25),
  LIN: pairs(4, 31),
  SLN: pairs(9, 28),
  PO4: ['C0506', 'P0607'],
  SN1: ['P0506'],
};

function pairs(first: number, last: number): string[] {
  const notes: string[] = [];
  for (let i = first; i < last; i += 2) {
    notes.push(`P${two(i)}${two(i + 1)}`);
  }
  return notes;
}
function two(n: number): string {
  return String(n).padStart(2, '0');
}

// A module-local binding: the build's CommonJS output reads an import through a getter at every
// call (this one runs for every segment).
const tagSlot = segmentTagSlot;

/** AK4 syntax error codes (AK403) for a violated note: 10 (exclusion condition violated) for E, else 2. */
const AK4_CODE: Record<string, string> = { E: '10' };

interface CompiledNote {
  note: string;
  kind: string;
  elements: number[];
  /** The lowest element number the note names: a segment with fewer elements has none of them. */
  lowest: number;
  /** The least `lowest` of this note and those after it (0 when one of them is an R note). */
  restFrom: number;
}

/**
 * Notes parsed once per table, by tag: `bySlot[tagSlot(tag)]`, a plain array read (this runs for
 * every segment of every set, and most have no note), and `byTag` for keys that are no tag.
 */
interface CompiledTable {
  bySlot: (CompiledNote[] | undefined)[];
  byTag: Map<string, CompiledNote[]>;
}
const compiledTables = new WeakMap<object, CompiledTable>();
/** The table compiled last (nearly always SYNTAX_NOTES): spares the WeakMap lookup per segment. */
let lastNotes: object | undefined;
let lastTable: CompiledTable | undefined;

function compiled(notes: Readonly<Record<string, readonly string[]>>): CompiledTable {
  if (notes === lastNotes) {
    return lastTable!;
  }
  let table = compiledTables.get(notes);
  if (!table) {
    table = { bySlot: new Array(TAG_SLOTS), byTag: new Map() };
    for (const [t, list] of Object.entries(notes)) {
      const rules = list.map((note) => {
        const elements: number[] = [];
        for (let i = 1; i + 2 <= note.length; i += 2) {
          elements.push(Number(note.slice(i, i + 2)));
        }
        return { note, kind: note[0], elements, lowest: elements.length ? Math.min(...elements) : 0, restFrom: 0 };
      });
      // restFrom: a segment with fewer elements than this cannot break this note or any after it.
      let from = Infinity;
      // Stryker disable next-line all: equivalent, a restFrom left at 0 only checks notes it could skip
      for (let r = rules.length - 1; r >= 0; r--) {
        const lowest = rules[r].kind === 'R' || !(rules[r].lowest > 0) ? 0 : rules[r].lowest;
        from = Math.min(from, lowest);
        rules[r].restFrom = from;
      }
      const slot = tagSlot(t, 0, t.length);
      if (slot === -1) {
        table.byTag.set(t, rules);
      } else {
        table.bySlot[slot] = rules;
      }
    }
    compiledTables.set(notes, table);
  }
  lastNotes = notes;
  lastTable = table;
  return table;
}

function rulesFor(table: CompiledTable, tag: string): CompiledNote[] | undefined {
  const slot = tagSlot(tag, 0, tag.length);
  return slot === -1 ? table.byTag.get(tag) : table.bySlot[slot];
}

/**
 * Checks one segment of a transaction set; `setPosition` is its position in the set (ST = 1).
 * `slot`: its tag's tagSlot when the caller knows it (the reader does), else -1.
 */
export function checkSyntaxNotes(segment: Segment, setPosition: number, notes = SYNTAX_NOTES, slot = -1): Problem[] {
  // Most segments have no note: one array read in the table compiled last (nearly always this
  // one). Kept this short so that it is compiled into its caller; the notes are checked apart.
  const table = notes === lastNotes ? lastTable! : compiled(notes);
  const rules = slot === -1 ? rulesFor(table, segment.tag) : table.bySlot[slot];
  return rules ? checkRules(segment, setPosition, rules) : NONE;
}

function checkRules(segment: Segment, setPosition: number, rules: readonly CompiledNote[]): Problem[] {
  let problems: Problem[] | undefined;
  const count = segment.elementCount;
  for (let r = 0; r < rules.length; r++) {
    const { note, kind, elements } = rules[r];
    let found = 0;
    let firstMissing = 0;
    let firstPresent = 0;
    let secondPresent = 0;
    if (count < rules[r].restFrom) {
      break;
    } // none of the remaining notes can be violated
    if (count < rules[r].lowest) {
      // None of its elements is there (LIN has 14 pair notes, most LINs fill one or two pairs).
      if (kind !== 'R') {
        continue;
      }
      firstMissing = elements[0];
    } else {
      for (let i = 0; i < elements.length; i++) {
        const el = elements[i];
        if (segment.hasValue(el)) {
          found++;
          if (found === 1) {
            firstPresent = el;
          } else if (found === 2) {
            secondPresent = el;
          }
        } else if (!firstMissing) {
          firstMissing = el;
        }
      }
      if (found === 0 && kind !== 'R') {
        continue;
      } // the common case: nothing there, nothing required
    }
    const first = found > 0 && segment.hasValue(elements[0]);
    let badElement: number | undefined;
    switch (kind) {
      case 'P':
        if (found > 0 && found < elements.length) {
          badElement = firstMissing;
        }
        break;
      case 'R':
        if (found === 0) {
          badElement = elements[0];
        }
        break;
      case 'E':
        if (found > 1) {
          badElement = secondPresent;
        }
        break;
      case 'C':
        if (first && found < elements.length) {
          badElement = firstMissing;
        }
        break;
      case 'L':
        if (first && found === 1) {
          badElement = elements[1];
        }
        break;
    }
    if (badElement !== undefined) {
      (problems ??= []).push({
        code: 'SYNTAX_NOTE',
        severity: 'error',
        message: `${segment.tag}${two(badElement)}: syntax note ${note} violated`,
        segmentIndex: segment.index,
        line: segment.line,
        column: segment.column,
        tag: segment.tag,
        setPosition,
        element: badElement,
        note,
        ...(kind !== 'R' && { trigger: kind === 'C' || kind === 'L' ? elements[0] : firstPresent }),
      });
    }
  }
  return problems ?? NONE;
}

/** Shared empty result (frozen: callers only read it). */
const NONE = Object.freeze([]) as unknown as Problem[];

export function ak4CodeForNote(note: string | undefined): string {
  return (note && AK4_CODE[note[0]]) || '2';
}
