/**
 * The tokenizer of scanLcia (src/parse/lcia.ts), which reads a cut-out LCIAResults element on its own (the body scan,
 * src/parse/body.ts, is told the tokens of checkWellFormed instead), and the attribute reader of both: markup of a
 * document checkWellFormed passed, read by hand with indexOf and char codes, a string or a latin1 view of the bytes
 * alike (markup is ASCII).
 */

/** A markup token of a well-formed text: 0 start (or empty-element) tag, 1 end tag, 2 comment, CDATA or PI. */
export interface Token {
  kind: 0 | 1 | 2;
  qname: string;
  /** The attributes of a start tag, as written (white space first). */
  attrsFrom: number;
  attrsTo: number;
  empty: boolean;
  /** Offset after the token. */
  end: number;
  /** Next `"` and `'` at or after the scan (-1: none left, -2: not searched yet): each is searched for once, not per tag. */
  dq: number;
  sq: number;
}

/**
 * The token at `lt` (a `<`), read by hand: a regex per tag cost most of the body scan. False for what this scanner
 * does not read: a name outside [A-Za-z_][\w.-]*(:[A-Za-z_][\w.-]*)? (the caller parses the whole document).
 */
export function readToken(text: string, lt: number, t: Token): boolean {
  const c = text.charCodeAt(lt + 1);
  if (c === 0x21 /* ! */ || c === 0x3f /* ? */) {
    const close = c === 0x3f ? '?>' : text.startsWith('<!--', lt) ? '-->' : text.startsWith('<![CDATA[', lt) ? ']]>' : undefined;
    const e = close ? text.indexOf(close, lt + 2) : -1;
    if (e < 0) return false;
    t.kind = 2;
    t.end = e + close!.length;
    return true;
  }
  const endTag = c === 0x2f; /* / */
  const n0 = endTag ? lt + 2 : lt + 1;
  if (!nameStart(text.charCodeAt(n0))) return false;
  let p = n0 + 1;
  for (let colon = false; ;) {
    const ch = text.charCodeAt(p);
    if (nameChar(ch)) p++;
    else if (ch === 0x3a && !colon && nameStart(text.charCodeAt(p + 1))) {
      colon = true;
      p += 2;
    } else break;
  }
  const after = text.charCodeAt(p);
  if (after !== 0x3e && after !== 0x2f && after !== 0x20 && after !== 0x0a && after !== 0x09 && after !== 0x0d) return false;
  t.qname = text.slice(n0, p);
  t.attrsFrom = p;
  if (endTag) {
    while (isSpace(text.charCodeAt(p))) p++;
    if (text.charCodeAt(p) !== 0x3e) return false;
    t.kind = 1;
    t.attrsTo = p;
    t.empty = false;
    t.end = p + 1;
    return true;
  }
  // To the `>` that ends the tag, jumping over quoted values (they may hold one) with indexOf, not char by char.
  for (let gt = -1; ;) {
    if (gt < p) gt = text.indexOf('>', p);
    if (gt < 0) return false;
    if (t.dq !== -1 && t.dq < p) t.dq = text.indexOf('"', p);
    if (t.sq !== -1 && t.sq < p) t.sq = text.indexOf("'", p);
    const q = Math.min(t.dq < 0 ? Infinity : t.dq, t.sq < 0 ? Infinity : t.sq);
    if (q > gt) {
      p = gt;
      break;
    }
    const close = text.indexOf(q === t.dq ? '"' : "'", q + 1);
    if (close < 0) return false;
    p = close + 1;
  }
  t.kind = 0;
  t.empty = text.charCodeAt(p - 1) === 0x2f;
  t.attrsTo = t.empty ? p - 1 : p;
  t.end = p + 1;
  return true;
}

const nameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const nameChar = (c: number) => nameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;

/** A token for one text: its quote positions belong to that text. */
export function newToken(): Token {
  return { kind: 0, qname: '', attrsFrom: 0, attrsTo: 0, empty: false, end: 0, dq: -2, sq: -2 };
}

/**
 * The attributes of a start tag (`raw`: from after its name to before its `>` or `/>`), as [name, raw value] pairs
 * in document order; the tag is well-formed, so this reads names, `=` and quotes only.
 */
export function attributesOf(raw: string): [string, string][] {
  const out: [string, string][] = [];
  for (let p = 0; ;) {
    while (isSpace(raw.charCodeAt(p))) p++;
    const eq = raw.indexOf('=', p);
    if (eq < 0) return out;
    let n = eq;
    while (isSpace(raw.charCodeAt(n - 1))) n--;
    const name = raw.slice(p, n);
    let q = eq + 1;
    while (isSpace(raw.charCodeAt(q))) q++;
    const close = raw.indexOf(raw[q]!, q + 1);
    out.push([name, raw.slice(q + 1, close)]);
    p = close + 1;
  }
}
