/**
 * The well-formedness check every document passes before anything reads it, at every validation level
 * (XML 1.0 §2 and Namespaces in XML §5/§6, minus DTDs, which are refused). One linear pass with indexOf and
 * sticky regular expressions: no tree, no copies of attribute values or text, so memory stays at the document's
 * text whatever its shape. Also the place of the per-document limits on shape (attributes, depth, elements):
 * beyond them the parsers behind this one grow out of proportion (fast-xml-parser's tree, libxml2's quadratic
 * attribute check). Kept to this one function so a byte-level engine can replace it.
 */

export interface ShapeLimits {
  /** Attributes (namespace declarations included) on one element. */
  maxAttributes: number;
  /** Elements open at once. */
  maxDepth: number;
  /**
   * Elements and attributes of one document together: the parsed tree costs about 300 bytes a node. Real EPDs
   * hold about 25 nodes per KB, so the default admits 80 MB of such XML (the file size limit is 50 MB).
   */
  maxNodes: number;
  /**
   * KB (thousands of characters) of one text node or one start tag with its attributes. fast-xml-parser builds
   * both a character at a time: one 10 MB name cost 400 MB. Real EPDs: a few KB at most.
   */
  maxTokenKB: number;
  /**
   * KB of a dataset's index fields (names, classifications, comments, references; checked after extraction, not
   * here): they are copied into every list and page. Real EPDs hold 15 to 45 KB.
   */
  maxIndexKB: number;
}

export const DEFAULT_SHAPE_LIMITS: ShapeLimits = {
  maxAttributes: 256,
  maxDepth: 256,
  maxNodes: 2_000_000,
  maxTokenKB: 1024,
  maxIndexKB: 1024,
};

/**
 * Told each token of the document as the check passes it, in document order (src/parse/body.ts reads the body from
 * them: one tokenisation for both). A token is told once it is checked; a document that fails later is still
 * failed, so a sink keeps nothing of a document until the check has passed it.
 */
export interface TokenSink {
  /** A start or empty-element tag (one object, filled again for every tag: read it during the call only). */
  open(tag: OpenTag): void;
  /** An end tag at `lt`, `end` the offset after its `>`. */
  close(lt: number, name: string, end: number): void;
  /** A comment, CDATA section or processing instruction at `lt`, `end` the offset after it. */
  markup(lt: number, end: number): void;
}

export interface OpenTag {
  /** Offset of its `<`, its name, and the offset after its `>`. */
  lt: number;
  name: string;
  end: number;
  /** Its attributes as written, [from, to): white space first, up to the `/>` or `>`. */
  from: number;
  to: number;
  empty: boolean;
  /** Its attribute names, the first `count` of `names`. */
  names: readonly string[];
  count: number;
  /**
   * Its namespace declarations: 0 none; 1 only ones that bind a prefix to the very value (as written) in force
   * already, which change nothing; 2 at least one that does.
   */
  xmlns: 0 | 1 | 2;
  /**
   * The same object for every start tag of the document with this one's text (to its `>`) under the same namespace
   * bindings, undefined where the check keeps no memo of it: a key for a sink's own tables of tags, and in `facts` a
   * slot the sink may fill with what it made of the tag (cheaper than a table by object; never read by the check).
   */
  memo: { facts: unknown } | undefined;
}

export type WellFormed =
  { ok: true; nodes: number } | { ok: false; ruleId: 'xml-malformed' | 'xml-doctype' | 'xml-limit'; message: string; offset: number };

const START =
  '[:A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F' +
  '\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD]|[\\uD800-\\uDB7F][\\uDC00-\\uDFFF]';
const NAME_CHARS = `(?:${START}|[-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040])*`;
/** An XML Name (XML 1.0 fifth edition, §2.3). */
const NAME = `(?:${START})${NAME_CHARS}`;
// XML's NameChar includes combining marks (U+0300-U+036F) on their own, as the lint rule cannot know.
// eslint-disable-next-line no-misleading-character-class
const TAG_NAME = new RegExp(NAME, 'y');
// eslint-disable-next-line no-misleading-character-class
const ATTRIBUTE = new RegExp(`[ \\t\\r\\n]+(${NAME})[ \\t\\r\\n]*=[ \\t\\r\\n]*(["'])`, 'y');
/** ASCII names, tried first (about twice as fast); a non-ASCII character right after one sends the match to the full rule. */
const ASCII_NAME = /[A-Za-z_:][-.0-9A-Za-z_:]*/y;
const ASCII_ATTRIBUTE = /[ \t\r\n]+([A-Za-z_:][-.0-9A-Za-z_:]*)[ \t\r\n]*=[ \t\r\n]*(["'])/y;
const END_TAG_END = /[ \t\r\n]*>/y;
const REFERENCE = /(?:lt|gt|amp|quot|apos|#([0-9]+)|#x([0-9a-fA-F]+));/y;
const S = '[ \\t\\r\\n]';
const XML_DECL = new RegExp(
  `<\\?xml${S}+version${S}*=${S}*(["'])1\\.[0-9]+\\1(?:${S}+encoding${S}*=${S}*(["'])[A-Za-z][A-Za-z0-9._-]*\\2)?` +
    `(?:${S}+standalone${S}*=${S}*(["'])(?:yes|no)\\3)?${S}*\\?>`,
  'y',
);
// eslint-disable-next-line no-control-regex
const BAD_CHAR = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

class Malformed extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly ruleId: 'xml-malformed' | 'xml-doctype' | 'xml-limit' = 'xml-malformed',
  ) {
    super(message);
  }
}

/**
 * Whether `text` (decoded, BOM stripped) is a well-formed, namespace-well-formed XML document without a DTD.
 * `bytes`: the text is a latin1 view of UTF-8 bytes made by viewXml (which refuses every character XML forbids, so
 * none is looked for here): markup reads the same, but a name with a non-ASCII character cannot be judged, so it
 * fails; a failure on a view means "check the decoded text", whose verdict (and offset) is the one to report.
 */
export function checkWellFormed(text: string, limits: ShapeLimits = DEFAULT_SHAPE_LIMITS, bytes = false, sink?: TokenSink): WellFormed {
  try {
    return { ok: true, nodes: scan(text, limits, bytes, sink) };
  } catch (e) {
    if (!(e instanceof Malformed)) throw e;
    return { ok: false, ruleId: e.ruleId, message: e.message, offset: e.offset };
  } finally {
    // A name sliced from the document would keep all of it alive until the next document.
    ATTR_NAMES.fill('');
    PREFIXED_URI.fill('');
    QNAMES.fill('');
    PREFIXES.fill('');
  }
}

function scan(text: string, limits: ShapeLimits, bytes: boolean, sink: TokenSink | undefined): number {
  const bad = bytes ? null : BAD_CHAR.exec(text);
  if (bad) {
    throw new Malformed(`character U+${bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`, bad.index);
  }
  const n = text.length;
  let i = 0;
  if (text.startsWith('<?xml', 0) && /[ \t\r\n?]/.test(text[5] ?? '')) {
    XML_DECL.lastIndex = 0;
    if (!XML_DECL.test(text)) throw new Malformed('malformed XML declaration', 0);
    i = XML_DECL.lastIndex;
  }
  const next = new Next(text);
  const stack: string[] = [];
  // Namespace bindings: prefix -> URIs, innermost last; `declared[d]` lists the prefixes element d declared.
  const bindings = new Map<string, string[]>([['xml', [XML_NS]]]);
  const declared: (string[] | undefined)[] = [];
  let nodes = 0;
  let rootDone = false;
  const pos: Pos = { end: 0, quote: 0, n: 0, xmlns: 0, uris: undefined };
  // Start tags already checked, by their text (under tagKey's number) and the namespace bindings in force (TagMemo):
  // exports repeat a few dozen tags hundreds of times (every LCIA result's epd:amount tags). `state` names the bindings
  // in force, -1 none memoised; `states` holds the state outside each open element.
  const memo: Map<number, TagMemo[]>[] = [];
  const states: number[] = [];
  let state = 0;
  let lastState = 0;
  let memoised = 0;
  const tag: OpenTag = { lt: 0, name: '', end: 0, from: 0, to: 0, empty: false, names: ATTR_NAMES, count: 0, xmlns: 0, memo: undefined };
  const maxToken = limits.maxTokenKB * 1024;
  for (;;) {
    const lt = text.indexOf('<', i);
    const textEnd = lt < 0 ? n : lt;
    // Character data: references only where they are valid; outside the root, white space only.
    if (textEnd - i > maxToken) {
      throw new Malformed(`a text of ${kb(textEnd - i)} KB, over the ${limits.maxTokenKB} KB limit (limits.maxTokenKB)`, i, 'xml-limit');
    }
    // Most texts hold neither `&` nor `]]>`: told by the offsets found last, without a search.
    if (stack.length) {
      if (next.mayHoldMarkup(textEnd)) checkText(next, i, textEnd);
    } else if (textEnd > i && !/^[ \t\r\n]*$/.test(text.slice(i, textEnd))) {
      const at = i + text.slice(i, textEnd).search(/[^ \t\r\n]/);
      throw new Malformed(rootDone ? 'text after the root element' : 'text before the root element', at);
    }
    if (lt < 0) break;
    const c = text.charCodeAt(lt + 1);
    if (c === 0x3f /* ? */) {
      const end = text.indexOf('?>', lt + 2);
      if (end < 0) throw new Malformed('processing instruction not closed', lt);
      TAG_NAME.lastIndex = lt + 2;
      const target = TAG_NAME.exec(text)?.[0];
      if (bytes && (!target || /[^\0-\x7f]/.test(target) || text.charCodeAt(TAG_NAME.lastIndex) >= 0x80)) {
        throw new Malformed('non-ASCII name in a byte view', lt);
      }
      if (!target || target.includes(':')) throw new Malformed('processing instruction without a valid target', lt);
      if (target.toLowerCase() === 'xml') throw new Malformed('XML declaration not at the start of the document', lt);
      if (TAG_NAME.lastIndex !== end && !/[ \t\r\n]/.test(text[TAG_NAME.lastIndex]!)) {
        throw new Malformed('processing instruction without a valid target', lt);
      }
      i = end + 2;
      sink?.markup(lt, i);
    } else if (c === 0x21 /* ! */) {
      if (text.startsWith('<!--', lt)) {
        const end = text.indexOf('-->', lt + 4);
        if (end < 0) throw new Malformed('comment not closed', lt);
        const dash = text.indexOf('--', lt + 4);
        if (dash < end) throw new Malformed('"--" inside a comment', dash);
        i = end + 3;
        sink?.markup(lt, i);
      } else if (text.startsWith('<![CDATA[', lt)) {
        if (!stack.length) throw new Malformed('CDATA section outside the root element', lt);
        const end = text.indexOf(']]>', lt + 9);
        if (end < 0) throw new Malformed('CDATA section not closed', lt);
        i = end + 3;
        sink?.markup(lt, i);
      } else if (text.startsWith('<!DOCTYPE', lt)) {
        throw new Malformed(
          stack.length || rootDone
            ? 'a DOCTYPE inside the document (only allowed before the root element)'
            : 'the file declares a DOCTYPE; DTDs are refused for safety and ILCD does not use them',
          lt,
          stack.length || rootDone ? 'xml-malformed' : 'xml-doctype',
        );
      } else {
        throw new Malformed('markup declaration ("<!") outside a DTD', lt);
      }
    } else if (c === 0x2f /* / */) {
      // The usual end tag: the open element's name, then ">" (or white space): the same verdict as the path below.
      const top = stack.length ? stack[stack.length - 1]! : undefined;
      // Nearly always the name and `>` at once: compared as a slice, which V8 does in a third of startsWith's time.
      const e0 = top === undefined ? 0 : lt + 2 + top.length;
      if (top !== undefined && (text.charCodeAt(e0) === 0x3e ? text.slice(lt + 2, e0) === top : text.startsWith(top, lt + 2))) {
        let e = e0;
        while (isSpace(text.charCodeAt(e))) e++;
        if (text.charCodeAt(e) === 0x3e /* > */) {
          stack.pop();
          state = states.pop()!;
          unbind(bindings, declared.pop());
          if (!stack.length) rootDone = true;
          i = e + 1;
          sink?.close(lt, top, i);
          continue;
        }
      }
      const name = nameAt(text, lt + 2, pos, bytes);
      if (!name) throw new Malformed('end tag without a valid name', lt);
      END_TAG_END.lastIndex = pos.end;
      if (!END_TAG_END.test(text)) throw new Malformed(`end tag </${name}> not closed by ">"`, lt);
      const open = stack.pop();
      if (open !== name) {
        throw new Malformed(open ? `end tag </${name}> does not match <${open}>` : `end tag </${name}> without a start tag`, lt);
      }
      state = states.pop()!;
      unbind(bindings, declared.pop());
      if (!stack.length) rootDone = true;
      i = END_TAG_END.lastIndex;
      sink?.close(lt, name, i);
    } else {
      if (rootDone) throw new Malformed('a second root element', lt);
      // A tag met before in the same bindings: its verdict and effects are known. Its text up to the first `>` is what
      // is compared (under tagKey's number); only tags that end there are kept, so a tag with a `>` in a value never
      // matches one.
      const gt = state < 0 ? -1 : text.indexOf('>', lt);
      const key = gt >= 0 && gt - lt < MEMO_TAG_CHARS ? tagKey(text, lt, gt) : -1;
      const same = key < 0 ? undefined : memo[state]?.get(key);
      let raw: string | undefined;
      let known: TagMemo | undefined;
      if (same !== undefined) {
        raw = text.slice(lt, gt + 1);
        for (let k = 0; k < same.length; k++) {
          if (same[k]!.raw === raw) {
            known = same[k];
            break;
          }
        }
      }
      let name: string;
      let from: number;
      let empty: boolean;
      let count: number;
      let xmlns: 0 | 1 | 2;
      let after: number;
      let kept: TagMemo | undefined;
      if (known) {
        kept = known;
        ({ name, empty, xmlns, after } = known);
        count = known.names.length;
        from = lt + known.from;
        i = gt + 1;
        if (known.decl) {
          for (let k = 0; k < known.decl.length; k++) bindings.get(known.decl[k]!)!.push(known.uris![k]!);
        }
        declared.push(known.decl);
        for (let k = 0; k < count; k++) ATTR_NAMES[k] = known.names[k]!;
      } else {
        const tagName = nameAt(text, lt + 1, pos, bytes);
        if (!tagName) throw new Malformed('"<" not followed by a tag name (write &lt; in text)', lt);
        name = tagName;
        from = pos.end;
        i = startTag(next, lt, name, from, limits, bindings, declared, pos, bytes);
        empty = text.charCodeAt(i - 2) === 0x2f; /* / */
        count = pos.n;
        xmlns = pos.xmlns;
        // Bindings that change make a state of their own (-1 past MEMO_STATES: no memo inside).
        after = state < 0 || xmlns < 2 ? state : lastState < MEMO_STATES ? ++lastState : -1;
        if (key >= 0 && i === gt + 1 && memoised < MEMO_TAGS && (same?.length ?? 0) < MEMO_PER_KEY) {
          const names = ATTR_NAMES.slice(0, count);
          const decl = declared[declared.length - 1];
          raw ??= text.slice(lt, gt + 1);
          kept = { raw, name, from: from - lt, names, empty, xmlns, decl, uris: pos.uris, after, facts: undefined };
          if (same) same.push(kept);
          else (memo[state] ??= new Map()).set(key, [kept]);
          memoised++;
        }
      }
      nodes += 1 + count;
      if (i - lt > maxToken) {
        const what = `start tag <${name}> of ${kb(i - lt)} KB, over the ${limits.maxTokenKB} KB limit (limits.maxTokenKB)`;
        throw new Malformed(what, lt, 'xml-limit');
      }
      if (nodes > limits.maxNodes) {
        throw new Malformed(`more than ${limits.maxNodes} elements and attributes (limits.maxNodes)`, lt, 'xml-limit');
      }
      if (!empty) {
        stack.push(name);
        states.push(state);
        state = after;
        if (stack.length > limits.maxDepth) {
          throw new Malformed(`elements nested more than ${limits.maxDepth} deep (limits.maxDepth)`, lt, 'xml-limit');
        }
      } else {
        unbind(bindings, declared.pop());
        if (!stack.length) rootDone = true;
      }
      // Told once within the limits: a sink never works on a tag the check is about to refuse (a 50 MB tag).
      if (sink) {
        tag.lt = lt;
        tag.name = name;
        tag.end = i;
        tag.from = from;
        tag.to = empty ? i - 2 : i - 1;
        tag.empty = empty;
        tag.count = count;
        tag.xmlns = xmlns;
        tag.memo = kept;
        sink.open(tag);
      }
    }
  }
  if (stack.length) throw new Malformed(`the document ends inside <${stack[stack.length - 1]}>`, n);
  if (!rootDone) throw new Malformed('no root element', n);
  return nodes;
}

function kb(chars: number): string {
  return (chars / 1024).toFixed(0);
}

/**
 * Where the scan is, shared by the helpers of one document (one object, not one per tag: the scan allocated 3.5x
 * the document's size, and the GC that followed was a fifth of a read worker's time): the offset after what was just
 * read, the quote of the attribute value it opened, the attributes of the start tag just read.
 */
interface Pos {
  end: number;
  quote: number;
  n: number;
  xmlns: 0 | 1 | 2;
  /** The namespaces the tag's declarations bind, in the order of its entry in `declared`. */
  uris: string[] | undefined;
}

/** A start tag checked: what the check made of it and did to the bindings, for the next tag of the same text. */
interface TagMemo {
  /** Its text, to its `>`. */
  raw: string;
  name: string;
  /** Offset of its attributes from its `<`. */
  from: number;
  names: string[];
  empty: boolean;
  xmlns: 0 | 1 | 2;
  /** Its entry in `declared` (the prefixes it binds, shared: never changed) and their namespaces. */
  decl: string[] | undefined;
  uris: string[] | undefined;
  /** The bindings' state inside it. */
  after: number;
  /** The sink's (OpenTag.memo). */
  facts: unknown;
}

/**
 * Bounds of one document's memo: tags longer than this are not kept (the key is their text), nor more tags, nor tags
 * under more binding states (a hostile document declaring anew on every element).
 */
const MEMO_TAG_CHARS = 512;
const MEMO_TAGS = 4096;
const MEMO_STATES = 256;
/** Tags kept under one key at most: a document of tags made to share one is parsed, never compared at length. */
const MEMO_PER_KEY = 8;

/**
 * The memo's key of the tag [lt, gt]: its length and a few of its characters (the first of its name; the last ones,
 * where the tags exports repeat differ: an `epd:module` value), the tags under one key told apart by their text. A
 * map by the text hashed every character of every start tag again, 60% of an EPD's bytes (10,000 bench EPDs: the
 * lookup 126 -> 60-85 us per EPD in a harness).
 */
function tagKey(text: string, lt: number, gt: number): number {
  // No closure per tag. Before the string's start charCodeAt gives NaN, which the bitwise operators take as 0; a tag
  // shorter than its four characters (`<a>`) takes one from before it, which the comparison of texts makes harmless.
  const k = ((gt - lt) << 16) ^ (text.charCodeAt(gt - 1) << 8) ^ text.charCodeAt(gt - 2) ^ (text.charCodeAt(lt + 1) << 12);
  return (k ^ (text.charCodeAt(gt - 3) << 4)) & 0x3fffffff;
}

/** Attribute names and offsets of the start tag being read: reused from tag to tag (one document at a time). */
const ATTR_NAMES: string[] = [];
const ATTR_AT: number[] = [];
/** Whether each is a namespace declaration. */
const ATTR_DECL: boolean[] = [];

/** The Name at `at`, or undefined; `end` is set to the offset after it. */
function nameAt(text: string, at: number, pos: Pos, bytes: boolean): string | undefined {
  // ASCII_NAME by char codes (no match array): most names; anything else goes through the regexes below.
  if (isAsciiNameStart(text.charCodeAt(at))) {
    let e = at + 1;
    while (isAsciiNameChar(text.charCodeAt(e))) e++;
    if (!(text.charCodeAt(e) >= 0x80)) {
      pos.end = e;
      return text.slice(at, e);
    }
  }
  ASCII_NAME.lastIndex = at;
  let m = ASCII_NAME.exec(text);
  let re = ASCII_NAME;
  if (!m || text.charCodeAt(ASCII_NAME.lastIndex) >= 0x80 || text.charCodeAt(at) >= 0x80) {
    if (bytes) throw new Malformed('non-ASCII name in a byte view', at);
    TAG_NAME.lastIndex = at;
    m = TAG_NAME.exec(text);
    re = TAG_NAME;
  }
  pos.end = re.lastIndex;
  return m?.[0];
}

/** The attribute (` name="` or ` name='`) at `at`: its name, with `pos.end` after the quote and `pos.quote` its code. */
function attributeAt(text: string, at: number, pos: Pos, bytes: boolean): string | null {
  // ASCII_ATTRIBUTE by char codes (no match array); where it does not match, the regexes below decide.
  let p = at;
  while (isSpace(text.charCodeAt(p))) p++;
  if (p > at && isAsciiNameStart(text.charCodeAt(p))) {
    const n0 = p++;
    while (isAsciiNameChar(text.charCodeAt(p))) p++;
    const n1 = p;
    while (isSpace(text.charCodeAt(p))) p++;
    if (text.charCodeAt(p) === 0x3d /* = */) {
      p++;
      while (isSpace(text.charCodeAt(p))) p++;
      const q = text.charCodeAt(p);
      if (q === 0x22 || q === 0x27) {
        pos.end = p + 1;
        pos.quote = q;
        return text.slice(n0, n1);
      }
    }
  }
  ASCII_ATTRIBUTE.lastIndex = at;
  const m = ASCII_ATTRIBUTE.exec(text);
  if (m) {
    pos.end = ASCII_ATTRIBUTE.lastIndex;
    pos.quote = m[2]!.charCodeAt(0);
    return m[1]!;
  }
  // A view: a non-ASCII name ends the attributes here and the tag fails to close (a verdict for the decoded text).
  if (bytes) return null;
  ATTRIBUTE.lastIndex = at;
  const full = ATTRIBUTE.exec(text);
  pos.end = ATTRIBUTE.lastIndex;
  if (!full) return null;
  pos.quote = full[2]!.charCodeAt(0);
  return full[1]!;
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;
/** ASCII_NAME's first and following characters. */
const isAsciiNameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a;
const isAsciiNameChar = (c: number) => isAsciiNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;

/** A start (or empty-element) tag from just after its name; returns the offset after its `>`, `pos.n` its attributes. */
function startTag(
  next: Next,
  lt: number,
  name: string,
  from: number,
  limits: ShapeLimits,
  bindings: Map<string, string[]>,
  declared: (string[] | undefined)[],
  pos: Pos,
  bytes: boolean,
): number {
  let n = 0;
  pos.xmlns = 0;
  pos.uris = undefined;
  let seen: Set<string> | undefined;
  let decl: string[] | undefined;
  const text = next.text;
  let p = from;
  for (;;) {
    const an = attributeAt(text, p, pos, bytes);
    if (an === null) break;
    const vStart = pos.end;
    const vEnd = text.indexOf(pos.quote === 0x22 ? '"' : "'", vStart);
    if (vEnd < 0) throw new Malformed(`value of attribute ${an} not closed`, p);
    const lt2 = next.lessThan(vStart);
    if (lt2 >= 0 && lt2 < vEnd) throw new Malformed(`"<" in the value of attribute ${an}`, lt2);
    if (next.mayHoldAmpersand(vEnd)) checkReferences(next, vStart, vEnd);
    if (n >= limits.maxAttributes) {
      throw new Malformed(`more than ${limits.maxAttributes} attributes on <${name}> (limits.maxAttributes)`, p, 'xml-limit');
    }
    if (n >= 8) seen ??= new Set(ATTR_NAMES.slice(0, n));
    if (seen ? seen.has(an) : repeated(an, n)) throw new Malformed(`attribute ${an} repeated on <${name}>`, p);
    seen?.add(an);
    // 'x' first: startsWith is a call.
    const isDecl = an.charCodeAt(0) === 0x78 /* x */ && (an === 'xmlns' || an.startsWith('xmlns:'));
    ATTR_NAMES[n] = an;
    ATTR_DECL[n] = isDecl;
    ATTR_AT[n++] = p;
    if (isDecl) {
      const prefix = an === 'xmlns' ? '' : an.slice(6);
      const list = bindings.get(prefix);
      // Exports declare the same namespace on hundreds of elements: the binding in force is reused, not copied again.
      const top = list?.[list.length - 1];
      const same = top !== undefined && top.length === vEnd - vStart && text.startsWith(top, vStart);
      const uri = same ? top : text.slice(vStart, vEnd);
      if (!same) pos.xmlns = 2;
      else if (pos.xmlns === 0) pos.xmlns = 1;
      if (prefix === 'xmlns' || (prefix === 'xml') !== (uri === XML_NS) || (prefix !== 'xml' && uri === XMLNS_NS)) {
        throw new Malformed(`reserved namespace binding ${an}="${uri}"`, p);
      }
      if (prefix && uri === '') throw new Malformed(`empty namespace name for prefix ${prefix} (XML 1.1 only)`, p);
      (decl ??= []).push(prefix);
      (pos.uris ??= []).push(uri);
      if (list) list.push(uri);
      else bindings.set(prefix, [uri]);
    }
    p = vEnd + 1;
  }
  let end = p;
  while (isSpace(text.charCodeAt(end))) end++;
  if (text.charCodeAt(end) === 0x2f /* / */) end++;
  if (text.charCodeAt(end) !== 0x3e /* > */) {
    throw new Malformed(`start tag <${name}> malformed (attributes are name="value", separated by white space)`, p);
  }
  declared.push(decl);
  pos.n = n;
  checkQName(name, bindings, lt, 'element');
  // Two prefixes bound to one namespace: the same attribute twice (Namespaces §6.3). The first few prefixed attributes
  // are compared pair by pair without making names (most tags have one or two: xml:lang, epd:module); a set beyond.
  let prefixed = 0;
  let expanded: Set<string> | undefined;
  for (let k = 0; k < n; k++) {
    const a = ATTR_NAMES[k]!;
    if (ATTR_DECL[k]) continue;
    const uri = checkQName(a, bindings, ATTR_AT[k]!, 'attribute');
    if (uri === undefined) continue;
    if (prefixed < PAIRWISE) {
      for (let j = 0; j < prefixed; j++) {
        if (PREFIXED_URI[j] === uri && sameLocal(ATTR_NAMES[PREFIXED_AT[j]!]!, a)) {
          throw new Malformed(`attribute ${expandedKey(uri, a)} repeated on <${name}>`, ATTR_AT[k]!);
        }
      }
      PREFIXED_URI[prefixed] = uri;
      PREFIXED_AT[prefixed++] = k;
      continue;
    }
    expanded ??= new Set(PREFIXED_URI.map((u, j) => expandedKey(u, ATTR_NAMES[PREFIXED_AT[j]!]!)));
    const key = expandedKey(uri, a);
    if (expanded.has(key)) throw new Malformed(`attribute ${key} repeated on <${name}>`, ATTR_AT[k]!);
    expanded.add(key);
  }
  return end + 1;
}

/** The prefixed attributes compared pair by pair: their namespaces and indices in ATTR_NAMES. */
const PAIRWISE = 4;
const PREFIXED_URI: string[] = new Array<string>(PAIRWISE).fill('');
const PREFIXED_AT: number[] = new Array<number>(PAIRWISE).fill(0);

/** Whether two prefixed names have the same local part. */
function sameLocal(a: string, b: string): boolean {
  const ca = a.indexOf(':');
  const cb = b.indexOf(':');
  if (a.length - ca !== b.length - cb) return false;
  for (let k = 1; ca + k < a.length; k++) if (a.charCodeAt(ca + k) !== b.charCodeAt(cb + k)) return false;
  return true;
}

/** Is `name` among the first `n` attribute names of the tag being read? */
function repeated(name: string, n: number): boolean {
  for (let k = 0; k < n; k++) if (ATTR_NAMES[k] === name) return true;
  return false;
}

const expandedKey = (uri: string, qname: string) => `{${uri}}${qname.slice(qname.indexOf(':') + 1)}`;

/** The namespace of a prefixed name (undefined when unprefixed); throws for an undeclared prefix or a bad QName. */
function checkQName(qname: string, bindings: Map<string, string[]>, at: number, what: string): string | undefined {
  // Names repeat: the prefix of one seen lately is taken from a small table (slot by length and end characters)
  // instead of searched for, cut out and hashed again (a fifth of the check's instructions).
  const n = qname.length;
  const slot = (n * 31 + qname.charCodeAt(0) * 7 + qname.charCodeAt(n - 1)) & (QNAME_SLOTS - 1);
  let prefix: string;
  if (QNAMES[slot] === qname) prefix = PREFIXES[slot]!;
  else {
    const colon = qname.indexOf(':');
    prefix = colon < 0 ? '' : qname.slice(0, colon);
    if (colon >= 0 && (!prefix || colon === n - 1 || qname.indexOf(':', colon + 1) >= 0)) {
      throw new Malformed(`${what} name ${qname} is not a valid qualified name`, at);
    }
    if (prefix === 'xmlns') throw new Malformed(`${what} name ${qname} uses the reserved prefix xmlns`, at);
    QNAMES[slot] = qname;
    PREFIXES[slot] = prefix;
  }
  if (prefix === '') return undefined;
  const uris = bindings.get(prefix);
  if (!uris?.length) throw new Malformed(`namespace prefix ${prefix} of ${what} ${qname} is not declared`, at);
  return uris[uris.length - 1];
}

/** Valid QNames checked lately and their prefixes ('' for none), cleared with each document (they are slices of it). */
const QNAME_SLOTS = 64;
const QNAMES: string[] = new Array<string>(QNAME_SLOTS).fill('');
const PREFIXES: string[] = new Array<string>(QNAME_SLOTS).fill('');

function unbind(bindings: Map<string, string[]>, prefixes: string[] | undefined): void {
  if (prefixes) for (const p of prefixes) bindings.get(p)!.pop();
}

/**
 * Next offset of `&` and of `]]>`, remembered: the scan asks with ever larger offsets, so each is searched for once
 * per occurrence, not once per text node (which made a document without any `&` quadratic).
 */
class Next {
  /** Offset of the next `&`, `]]>` and `<` found (-1: none is left; -2: not looked for yet). */
  private amp = -2;
  private cdEnd = -2;
  private lt = -2;
  constructor(readonly text: string) {}
  /**
   * Whether an `&` may lie before `to` in what is still to be checked: not when the last one found lies at or past it,
   * or none is left (the offsets are asked for ever larger `from`, so none lies between).
   */
  mayHoldAmpersand(to: number): boolean {
    return this.amp !== -1 && this.amp < to;
  }
  /** The same for an `&` or a `]]>` (the faults of a text). */
  mayHoldMarkup(to: number): boolean {
    return this.mayHoldAmpersand(to) || (this.cdEnd !== -1 && this.cdEnd < to);
  }
  ampersand(from: number): number {
    if (this.amp !== -1 && this.amp < from) this.amp = this.text.indexOf('&', from);
    return this.amp;
  }
  /** The next `<` from `from` on (in an attribute value it fails the tag: asked once per tag, not per value). */
  lessThan(from: number): number {
    if (this.lt !== -1 && this.lt < from) this.lt = this.text.indexOf('<', from);
    return this.lt;
  }
  cdataEnd(from: number): number {
    if (this.cdEnd !== -1 && this.cdEnd < from) this.cdEnd = this.text.indexOf(']]>', from);
    return this.cdEnd;
  }
}

/** Character data between tags: `&` only as a reference, no `]]>`. */
function checkText(next: Next, from: number, to: number): void {
  checkReferences(next, from, to);
  const cd = next.cdataEnd(from);
  if (cd >= 0 && cd < to) throw new Malformed('"]]>" in text (write ]]&gt;)', cd);
}

/** Every `&` in [from, to) starts one of the five predefined entities or a reference to a legal character. */
function checkReferences(next: Next, from: number, to: number): void {
  const text = next.text;
  for (let a = next.ampersand(from); a >= 0 && a < to; a = next.ampersand(a + 1)) {
    REFERENCE.lastIndex = a + 1;
    const m = REFERENCE.exec(text);
    if (!m || REFERENCE.lastIndex > to) {
      const why = '"&" not starting a reference (write &amp;; only the five XML entities and character references exist without a DTD)';
      throw new Malformed(why, a);
    }
    if (m[1] !== undefined || m[2] !== undefined) {
      const cp = m[1] !== undefined ? Number(m[1]) : parseInt(m[2]!, 16);
      if (!isXmlChar(cp)) {
        throw new Malformed(`character reference ${text.slice(a, REFERENCE.lastIndex)} to a character not allowed in XML`, a);
      }
    }
  }
}

/** XML 1.0's Char production. */
function isXmlChar(cp: number): boolean {
  if (cp < 0x20) return cp === 0x9 || cp === 0xa || cp === 0xd;
  return cp <= 0xd7ff || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
}
