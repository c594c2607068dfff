import type { ByteView } from './safety.js';

/** Position (1-based line and column) of the nth start tag with this local name, any prefix; undefined when absent. */
export function locateElement(text: string, localName: string, nth = 0): { line: number; col: number } | undefined {
  const at = nthStartTag(text, localName, nth);
  return at === undefined ? undefined : positionAt(text, at);
}

/**
 * locateElement on a document's text or on its byte view (src/parse/safety.ts), without decoding the document: the
 * tag pattern is ASCII only (XML white space after the name, not JavaScript's \s, which holds non-ASCII spaces), so it
 * matches the same tags in both, in the same order; the line counts the same line feeds, and the column is
 * counted in the decoded characters of that line alone. Same result as locateElement on the decoded text.
 */
export function locateIn(src: string | ByteView, localName: string, nth = 0): { line: number; col: number } | undefined {
  if (typeof src === 'string') return locateElement(src, localName, nth);
  const at = nthStartTag(src.text, localName, nth);
  if (at === undefined) return undefined;
  // positionAt's column on the view counts bytes: the line starts that many bytes back.
  const { line, col } = positionAt(src.text, at);
  return { line, col: src.decode(at - col + 1, at).length + 1 };
}

/**
 * Offset of the nth `<name` or `<prefix:name` followed by XML white space, `/` or `>`: what the pattern
 * `<(?:[A-Za-z_][\w.-]*:)?name(?=[ \t\r\n/>])` finds, by `indexOf` of the name and a look back from each (a third of
 * the time rule findings took to locate was that pattern run over the document).
 */
function nthStartTag(text: string, localName: string, nth: number): number | undefined {
  let k = 0;
  for (let q = text.indexOf(localName, 1); q >= 0; q = text.indexOf(localName, q + 1)) {
    const after = text.charCodeAt(q + localName.length);
    if (!(after === 0x20 || after === 0x09 || after === 0x0d || after === 0x0a || after === 0x2f || after === 0x3e)) continue;
    const lt = tagStart(text, q);
    if (lt >= 0 && k++ === nth) return lt;
  }
  return undefined;
}

/** The `<` of a tag whose local name starts at `q` (after `<` or `<prefix:`), else -1. */
function tagStart(text: string, q: number): number {
  const b = text.charCodeAt(q - 1);
  if (b === 0x3c /* < */) return q - 1;
  if (b !== 0x3a /* : */) return -1;
  let p = q - 2;
  while (p >= 0 && isPrefixChar(text.charCodeAt(p))) p--;
  if (p < 0 || text.charCodeAt(p) !== 0x3c) return -1;
  const s = text.charCodeAt(p + 1);
  return (s >= 0x41 && s <= 0x5a) || (s >= 0x61 && s <= 0x7a) || s === 0x5f ? p : -1;
}

/** [\w.-]: ASCII letters, digits, `_`, `.`, `-`. */
function isPrefixChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2e || c === 0x2d;
}

export function positionAt(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/**
 * XPath (element names as written in the file) of the first start tag on `line`, preferring one with this local
 * name; a light tag scan, used for findings whose validator reports only a line (libxml2).
 */
export function xpathAtLine(text: string, line: number, localName?: string): string | undefined {
  const stack: string[] = [];
  const counts: Map<string, number>[] = [new Map<string, number>()];
  const re = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<(\/?)([A-Za-z_][\w.:-]*)((?:[^>"']|"[^"]*"|'[^']*')*?)(\/?)>/g;
  let cur = 1;
  let last = 0;
  let fallback: string | undefined;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    for (let i = text.indexOf('\n', last); i >= 0 && i < m.index; i = text.indexOf('\n', i + 1)) cur++;
    last = m.index;
    if (cur > line) break;
    if (m[2] === undefined) continue;
    if (m[1]) {
      stack.pop();
      counts.pop();
      continue;
    }
    const name = m[2];
    const siblings = counts[counts.length - 1]!;
    const n = (siblings.get(name) ?? 0) + 1;
    siblings.set(name, n);
    const step = n > 1 ? `${name}[${n}]` : name;
    if (cur === line) {
      const path = `/${[...stack, step].join('/')}`;
      if (!localName || name === localName || name.endsWith(`:${localName}`)) return path;
      fallback ??= path;
    }
    if (!m[4]) {
      stack.push(step);
      counts.push(new Map());
    }
  }
  return fallback;
}
