import { RE2JS } from 're2js';

/**
 * The regular expressions of partner mappings, matched by RE2 (re2js): in time linear in the text,
 * whatever the pattern, so `$match(text, /^(a+)+$/)` cannot stall the process as a backtracking
 * engine does (7 s for 26 characters). JSONata builds each regex literal with this class instead of
 * RegExp (its `RegexEngine` option) and uses `exec` and `lastIndex` only, as here. Patterns RE2
 * cannot match in linear time (backreferences, lookaround) are refused when the mapping runs, with
 * RE2's reason.
 */
export class LinearRegExp {
  lastIndex = 0;
  private readonly re: RE2JS;

  constructor(literal: RegExp | string) {
    const source = typeof literal === 'string' ? literal : literal.source;
    const flags = typeof literal === 'string' ? '' : literal.flags;
    this.re = RE2JS.compile(
      source,
      (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0),
    );
  }

  /** As RegExp#exec with the `g` flag: the next match from `lastIndex`, which moves past it (0 again when none). */
  exec(text: string): RegExpExecArray | null {
    const matcher = this.re.matcher(text);
    if (this.lastIndex > text.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups: string[] = [];
    for (let i = 0; i <= matcher.groupCount(); i++) {
      groups.push(matcher.group(i) ?? (undefined as unknown as string));
    }
    this.lastIndex = matcher.end();
    return Object.assign(groups, { index: matcher.start(), input: text }) as RegExpExecArray;
  }
}
