/** One X12 segment of a payload, where it starts (1-based line and column, as the gateway's problems name them). */
export interface X12Segment {
  index: number;
  tag: string;
  /** Elements after the tag: elements[0] is XX01. */
  elements: string[];
  text: string;
  line: number;
  column: number;
  /** The ISA13 of the interchange it is in. */
  interchange: string;
}

export interface X12Text {
  segments: X12Segment[];
  elementSeparator: string;
  terminator: string;
}

/** Splits a payload into segments with the delimiters its first ISA declares; undefined when it is not X12. */
export function splitX12(raw: string): X12Text | undefined {
  const start = raw.indexOf('ISA');
  if (start < 0 || start > 16 || raw.length < start + 106) {
    return undefined;
  }
  const elementSeparator = raw[start + 3];
  let at = start;
  for (let n = 0; n < 16; n++) {
    at = raw.indexOf(elementSeparator, at + 1);
    if (at < 0) {
      return undefined;
    }
  }
  const terminator = raw[at + 2];
  if (!terminator || /[A-Za-z0-9]/.test(terminator)) {
    return undefined;
  }
  const segments: X12Segment[] = [];
  let line = 1;
  let lineStart = 0;
  let interchange = '';
  let position = 0;
  while (position < raw.length) {
    // Skip the line breaks and spaces files put between segments, counting lines as the reader does.
    while (position < raw.length && /\s/.test(raw[position]) && raw[position] !== terminator) {
      if (raw[position] === '\n') {
        line++;
        lineStart = position + 1;
      }
      position++;
    }
    if (position >= raw.length) {
      break;
    }
    const end = raw.indexOf(terminator, position);
    const text = raw.slice(position, end < 0 ? raw.length : end);
    const [tag, ...elements] = text.split(elementSeparator);
    if (tag === 'ISA') {
      interchange = elements[12] ?? '';
    }
    segments.push({ index: segments.length, tag, elements, text, line, column: position - lineStart + 1, interchange });
    for (const char of text) {
      if (char === '\n') {
        line++;
      }
    }
    if (text.includes('\n')) {
      lineStart = position + text.lastIndexOf('\n') + 1;
    }
    position = end < 0 ? raw.length : end + 1;
  }
  return { segments, elementSeparator, terminator };
}

/** A problem pinned to a segment (and an element, when one is at fault). */
export interface Located {
  segment: number;
  element?: number;
  message: string;
}

const LINE_COLUMN = /\(?line (\d+), column (\d+)\)?/;

/** Problems of the gateway's text that name a line and column ("... (line 3, column 1)"). */
export function locateByText(x12: X12Text, messages: string[]): Located[] {
  const found: Located[] = [];
  for (const message of messages) {
    const match = LINE_COLUMN.exec(message);
    if (!match) {
      continue;
    }
    const [line, column] = [Number(match[1]), Number(match[2])];
    const at = [...x12.segments].reverse().find((s) => s.line < line || (s.line === line && s.column <= column));
    if (at) {
      found.push({ segment: at.index, message });
    }
  }
  return found;
}

export interface SetDiagnostic {
  transactionControl?: string;
  segmentPosition?: number;
  segmentTag?: string;
  element?: number;
  message?: string;
}

/** Diagnostics of a preview's sets: position within the set (ST = 1), as a 997's AK3 counts. */
export function locateBySet(
  x12: X12Text,
  sets: { interchangeKey: string; transactionControl: string; diagnostics: SetDiagnostic[] }[],
): Located[] {
  const found: Located[] = [];
  for (const set of sets) {
    const control = set.interchangeKey.split('/').pop() ?? '';
    const st = x12.segments.find(
      (s) => s.tag === 'ST' && s.elements[1] === set.transactionControl && (!control || s.interchange === control),
    );
    for (const diagnostic of set.diagnostics) {
      const message = diagnostic.message ?? 'problem';
      if (st && diagnostic.segmentPosition) {
        found.push({ segment: st.index + diagnostic.segmentPosition - 1, element: diagnostic.element, message });
      } else if (st) {
        found.push({ segment: st.index, message });
      }
    }
  }
  return found;
}
