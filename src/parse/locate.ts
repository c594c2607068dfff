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

function nthStartTag(text: string, localName: string, nth: number): number | undefined {
  const re = new RegExp(`<(?:[A-Za-z_][\\w.-]*:)?${localName.replace(/[.-]/g, '\\$&')}(?=[ \\t\\r\\n/>])`, 'g');
  let m: RegExpExecArray | null;
  let k = 0;
  while ((m = re.exec(text))) {
    if (k++ === nth) return m.index;
  }
  return undefined;
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
