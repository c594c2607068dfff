import { tableOf } from '../util/memo.js';
import { fromLatin1 } from './safety.js';

/**
 * The tree of a document that passed checkWellFormed, built by hand in one pass (indexOf and char codes): the same
 * tree as fast-xml-parser (ordered, values trimmed, entities decoded) converted by xml.ts, at a fraction of its cost
 * (docs/performance.md). `test/parse/tree.test.js` compares both on every XML file of the examples and fixtures and on
 * crafted documents. What fast-xml-parser reads in its own way where this builder does not follow is left to it:
 * buildTree returns undefined (see FALLBACK below).
 */

/** An element with its namespace resolved; attribute keys are `local` or `{uri}local`. */
export interface XNode {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
  text: string;
}

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** Decode the predefined XML entities and character references; leave anything else as written. */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (m, e: string) => {
    if (e[0] !== '#') return NAMED[e]!;
    const cp = e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
  });
}

/**
 * Documents fast-xml-parser (5.x, the options of xml.ts) reads differently from XML, left to it so the trees stay
 * equal: elements nested deeper than its limit (100: it throws), element names it refuses or renames (JavaScript
 * property names), a PI whose quotes make it end elsewhere than at the first `?>` (it skips quoted strings), and
 * names with a white-space character JavaScript knows but XML does not (U+FEFF is a NameChar).
 */
export const FXP_MAX_DEPTH = 100;
const FXP_NAMES = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'];
FXP_NAMES.push('__defineGetter__', '__defineSetter__', '__lookupGetter__', '__lookupSetter__');
/** FXP_NAMES by length: a name is compared with the few of its length (a Set hashed every element's name anew). */
const FXP_BY_LENGTH: string[][] = [];
for (const n of FXP_NAMES) (FXP_BY_LENGTH[n.length] ??= []).push(n);
const fxpName = (q: string): boolean => FXP_BY_LENGTH[q.length]?.includes(q) ?? false;

/** fast-xml-parser normalises line ends of the whole text first (XML §2.11). */
const CRLF = /\r\n?/g;
const lines = (s: string) => (s.indexOf('\r') < 0 ? s : s.replace(CRLF, '\n'));

/**
 * The root element of `text`, which must be well-formed (checkWellFormed); undefined where fast-xml-parser would
 * give another tree or fail (the caller parses with it). `latin1`: `text` is a ByteView's latin1 view of UTF-8
 * bytes; names and values read are decoded.
 */
export function buildTree(text: string, latin1 = false): XNode | undefined {
  const stack: XNode[] = [];
  const scopes: Map<string, string>[] = [];
  let scope = new Map([['xml', XML_NS]]);
  const memo: TreeMemo = { derived: new Map(), expanded: new Map() };
  let cur: XNode | undefined;
  let root: XNode | undefined;
  // The text run being read: comments do not end it (fast-xml-parser joins the text around them); anything else does.
  let run = '';
  const flush = () => {
    const t = (latin1 ? fromLatin1(run) : run).trim();
    if (t) cur!.text += decodeEntities(t);
    run = '';
  };
  for (let i = 0; ;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) break;
    // Character data matters inside the root only (outside it is white space); leading white space is trimmed anyway.
    if (cur && lt > i && (run || !blank(text, i, lt))) run += lines(text.slice(i, lt));
    const c = text.charCodeAt(lt + 1);
    if (c === 0x21 /* ! */) {
      if (text.charCodeAt(lt + 2) === 0x2d /* - */) {
        i = text.indexOf('-->', lt + 4) + 3;
        continue;
      }
      // CDATA (a DOCTYPE does not pass checkWellFormed): its own text, untrimmed, entities decoded all the same.
      if (!cur || !text.startsWith('<![CDATA[', lt)) return undefined;
      if (run) flush();
      const end = text.indexOf(']]>', lt + 9);
      const raw = text.slice(lt + 9, end);
      if (raw) cur.text += decodeEntities(lines(latin1 ? fromLatin1(raw) : raw));
      i = end + 3;
      continue;
    }
    if (c === 0x3f /* ? */) {
      const end = text.indexOf('?>', lt + 2);
      if (piEnd(text, lt + 1) !== end) return undefined;
      if (run) flush();
      i = end + 2;
      continue;
    }
    if (c === 0x2f /* / */) {
      if (run) flush();
      stack.pop();
      cur = stack[stack.length - 1];
      scope = scopes.pop()!;
      i = text.indexOf('>', lt + 2) + 1;
      continue;
    }
    // A start tag: the name, then attributes to the `>` (quoted values may hold one).
    let p = lt + 1;
    let wide = false;
    for (let ch = text.charCodeAt(p); ch !== 0x3e && ch !== 0x2f && !space(ch); ch = text.charCodeAt(++p)) wide ||= ch > 0x7f;
    const qname = wide ? wideName(text.slice(lt + 1, p), latin1) : text.slice(lt + 1, p);
    if (qname === undefined || fxpName(qname)) return undefined;
    let attrs: string[] | undefined;
    let xmlns = false;
    for (;;) {
      let ch = text.charCodeAt(p);
      while (space(ch)) ch = text.charCodeAt(++p);
      if (ch === 0x3e || ch === 0x2f) break;
      const n0 = p;
      wide = false;
      for (; ch !== 0x3d /* = */ && !space(ch); ch = text.charCodeAt(++p)) wide ||= ch > 0x7f;
      const name = wide ? wideName(text.slice(n0, p), latin1) : text.slice(n0, p);
      if (name === undefined) return undefined;
      p = text.indexOf('=', p) + 1;
      while (space(text.charCodeAt(p))) p++;
      const close = text.indexOf(text[p]!, p + 1);
      const raw = text.slice(p + 1, close);
      (attrs ??= []).push(name, decodeEntities(lines(latin1 ? fromLatin1(raw) : raw).trim()));
      if (name.startsWith('xmlns') && (name.length === 5 || name.charCodeAt(5) === 0x3a)) xmlns = true;
      p = close + 1;
    }
    const empty = text.charCodeAt(p) === 0x2f;
    const parentScope = scope;
    if (xmlns) scope = declare(scope, attrs!, memo);
    const colon = qname.indexOf(':');
    const node: XNode = {
      ns: scope.get(colon < 0 ? '' : qname.slice(0, colon)) ?? '',
      name: colon < 0 ? qname : qname.slice(colon + 1),
      attrs: {},
      children: [],
      text: '',
    };
    if (attrs) {
      for (let k = 0; k < attrs.length; k += 2) {
        const an = attrs[k]!;
        if (xmlns && (an === 'xmlns' || an.startsWith('xmlns:'))) continue;
        const ac = an.indexOf(':');
        // Unprefixed attributes are in no namespace (XML Namespaces §6.2).
        if (ac < 0) node.attrs[an] = attrs[k + 1]!;
        else {
          node.attrs[expanded(scope, an, ac, memo)] = attrs[k + 1]!;
        }
      }
    }
    if (cur) {
      if (run) flush();
      cur.children.push(node);
    } else if (root) return undefined;
    else root = node;
    if (empty) {
      scope = parentScope;
      i = p + 2;
    } else {
      if (stack.length > FXP_MAX_DEPTH) return undefined;
      stack.push(node);
      scopes.push(parentScope);
      cur = node;
      i = p + 1;
    }
  }
  return root;
}

/**
 * The scope with an element's namespace declarations (`attrs`: name, value, ...) added. Exports declare `epd` on
 * each of hundreds of `epd:amount` elements: one derived scope per parent scope and declaration, not one per element.
 */
function declare(parent: Map<string, string>, attrs: string[], memo: TreeMemo): Map<string, string> {
  let single = -1;
  for (let k = 0; k < attrs.length; k += 2) {
    const an = attrs[k]!;
    if (an !== 'xmlns' && !an.startsWith('xmlns:')) continue;
    if (single >= 0) return bind(new Map(parent), attrs);
    single = k;
  }
  const an = attrs[single]!;
  const uri = attrs[single + 1]!;
  const byUri = tableOf(tableOf(memo.derived, parent), an);
  let scope = byUri.get(uri);
  if (!scope) byUri.set(uri, (scope = bind(new Map(parent), attrs)));
  return scope;
}

function bind(scope: Map<string, string>, attrs: string[]): Map<string, string> {
  for (let k = 0; k < attrs.length; k += 2) {
    const an = attrs[k]!;
    if (an === 'xmlns') scope.set('', attrs[k + 1]!);
    else if (an.startsWith('xmlns:')) scope.set(an.slice(6), attrs[k + 1]!);
  }
  return scope;
}

/** One document's memo tables (src/util/memo.ts). */
interface TreeMemo {
  /** Derived scopes by parent scope, declaration name and URI. */
  derived: Map<Map<string, string>, Map<string, Map<string, Map<string, string>>>>;
  /** `{uri}local` of a prefixed attribute name per scope: made (and interned as a key) once, not per element. */
  expanded: Map<Map<string, string>, Map<string, string>>;
}

function expanded(scope: Map<string, string>, an: string, colon: number, memo: TreeMemo): string {
  const known = tableOf(memo.expanded, scope);
  let key = known.get(an);
  if (key === undefined) {
    const ap = an.slice(0, colon);
    known.set(an, (key = `{${scope.get(ap) ?? ap}}${an.slice(colon + 1)}`));
  }
  return key;
}

const space = (ch: number) => ch === 0x20 || ch === 0x0a || ch === 0x09 || ch === 0x0d;

/** Whether [from, to) is XML white space only. */
function blank(text: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) if (!space(text.charCodeAt(k))) return false;
  return true;
}

/** A name with non-ASCII characters, decoded; undefined when fast-xml-parser would cut it at one (its `\s`). */
function wideName(raw: string, latin1: boolean): string | undefined {
  const name = latin1 ? fromLatin1(raw) : raw;
  return /\s/.test(name) ? undefined : name;
}

/** Where fast-xml-parser ends a PI that starts at `from` (its `?`): at `?>`, jumping over quoted strings; -1: never. */
function piEnd(text: string, from: number): number {
  for (let k = from; k < text.length; k++) {
    const ch = text.charCodeAt(k);
    if (ch === 0x22 || ch === 0x27) {
      k = text.indexOf(text[k]!, k + 1);
      if (k < 0) return -1;
    } else if (ch === 0x3f && text.charCodeAt(k + 1) === 0x3e) return k;
  }
  return -1;
}
