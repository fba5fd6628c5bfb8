/**
 * An acknowledgment written as the tests' expectations spell X12, with `*` between elements and `~`
 * ending segments: dockbridge answers in the partner's own separators, which these files vary.
 */
export function withUsualSeparators(acknowledgment: string): string {
  const element = acknowledgment[3];
  // An ISA is 106 characters, its terminator the last of them.
  const terminator = acknowledgment[105];
  let out = '';
  for (const c of acknowledgment) {
    out += c === element ? '*' : c === terminator ? (terminator === '\n' ? '~\n' : '~') : c;
  }
  return out;
}
