import { createRequire } from 'node:module';
import type { X2jOptions, XMLParser as Parser } from 'fast-xml-parser';
import { lineOf, type ByteView } from './safety.js';
import { buildTree, decodeEntities, XML_NS, type XNode } from './tree.js';
import { checkWellFormed, DEFAULT_SHAPE_LIMITS, type ShapeLimits } from './wellformed.js';

export { decodeEntities, XML_NS, type XNode };

export type ParseResult = { ok: true; root: XNode } | { ok: false; message: string; line?: number; col?: number; ruleId?: string };

const ATTR = '@_';
/**
 * fast-xml-parser's CommonJS build, loaded when first needed: most documents never reach it (buildTree), and its ES
 * module build took 60 ms to load against 12 ms, in every read worker and every command.
 */
let loaded: Parser | undefined;
const parser = (): Parser => (loaded ??= newParser());
const newParser = (): Parser => {
  const { XMLParser } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');
  return new XMLParser(PARSER_OPTIONS);
};
const PARSER_OPTIONS: X2jOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: ATTR,
  // Entities are decoded by decodeEntities below: only the five XML ones and character
  // references, so nothing a document declares can ever be expanded.
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  commentPropName: false,
  // The ordered form keeps document order and is the cheaper one to build (bench: 7.6 -> 5.9 ms per EPD).
  preserveOrder: true,
  jPath: false,
  tagValueProcessor: (_name: string, value: string) => decodeEntities(value),
  attributeValueProcessor: (_name: string, value: string) => decodeEntities(value),
};

/** One node of fast-xml-parser's ordered output: `{ tag: children, ':@': attributes }` or `{ '#text': text }`. */
type Ordered = Record<string, unknown>;

/**
 * Parse well-formed XML into a namespace-aware tree; never matches on prefixes. The text is checked first
 * (checkWellFormed: fast-xml-parser's own validator took 350 MB for one 10 MB attribute) unless `checked` says
 * the caller did that already. A checked text is built by hand (tree.ts), the same tree at a fraction of the cost;
 * fast-xml-parser reads what that builder leaves to it and every text not checked here.
 */
export function parseXml(text: string, opts: { checked?: boolean; limits?: ShapeLimits } = {}): ParseResult {
  if (opts.checked) {
    const root = buildTree(text);
    if (root) return { ok: true, root };
  } else {
    const wf = checkWellFormed(text, opts.limits ?? DEFAULT_SHAPE_LIMITS);
    if (!wf.ok) return { ok: false, ruleId: wf.ruleId, message: wf.message, ...position(text, wf.offset) };
  }
  return parseFxp(text);
}

/**
 * parseXml of a checked document, as text or as a ByteView: a view is built on its bytes (only names and values
 * read are decoded) and decoded whole only for what is left to fast-xml-parser.
 */
export function parseChecked(src: string | ByteView): ParseResult {
  if (typeof src === 'string') return parseXml(src, { checked: true });
  const root = buildTree(src.text, true);
  return root ? { ok: true, root } : parseFxp(src.decode());
}

/** The tree by fast-xml-parser (ordered output converted by toNode). */
export function parseFxp(text: string): ParseResult {
  let doc: Ordered[];
  try {
    doc = parser().parse(text) as Ordered[];
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  const roots = doc.filter((n) => tagOf(n) !== undefined);
  if (roots.length !== 1) return { ok: false, message: `expected exactly one root element, found ${roots.length}` };
  const scope = new Map<string, string>([['xml', XML_NS]]);
  return { ok: true, root: toNode(roots[0]!, scope) };
}

/** Line and column (1-based) of an offset, for findings. */
export function position(text: string, offset: number): { line: number; col: number } {
  const nl = text.lastIndexOf('\n', offset - 1);
  return { line: lineOf(text, offset), col: offset - nl };
}

function tagOf(n: Ordered): string | undefined {
  for (const k in n) if (k !== ':@' && k !== '#text' && k[0] !== '?') return k;
  return undefined;
}

function toNode(o: Ordered, parentScope: Map<string, string>): XNode {
  const qname = tagOf(o)!;
  const rawAttrs = o[':@'] as Record<string, string> | undefined;
  let scope = parentScope;
  if (rawAttrs) {
    for (const key in rawAttrs) {
      if (key === `${ATTR}xmlns` || key.startsWith(`${ATTR}xmlns:`)) {
        if (scope === parentScope) scope = new Map(parentScope);
        scope.set(key === `${ATTR}xmlns` ? '' : key.slice(ATTR.length + 6), String(rawAttrs[key]));
      }
    }
  }
  const [prefix, local] = splitQName(qname);
  const node: XNode = { ns: scope.get(prefix) ?? '', name: local, attrs: {}, children: [], text: '' };
  if (rawAttrs) {
    for (const key in rawAttrs) {
      const an = key.slice(ATTR.length);
      if (an === 'xmlns' || an.startsWith('xmlns:')) continue;
      const [ap, al] = splitQName(an);
      // Unprefixed attributes are in no namespace (XML Namespaces §6.2).
      node.attrs[ap ? `{${scope.get(ap) ?? ap}}${al}` : al] = String(rawAttrs[key]);
    }
  }
  for (const c of o[qname] as Ordered[]) {
    if ('#text' in c) node.text += String(c['#text']);
    else if (tagOf(c) !== undefined) node.children.push(toNode(c, scope));
  }
  return node;
}

function splitQName(q: string): [string, string] {
  const i = q.indexOf(':');
  return i < 0 ? ['', q] : [q.slice(0, i), q.slice(i + 1)];
}

// ---- navigation helpers -------------------------------------------------------------

export function child(node: XNode | undefined, ns: string, name: string): XNode | undefined {
  return node?.children.find((c) => c.ns === ns && c.name === name);
}

export function childrenOf(node: XNode | undefined, ns: string, name: string): XNode[] {
  return node ? node.children.filter((c) => c.ns === ns && c.name === name) : [];
}

/** Follow a path of [namespace, local name] steps, taking the first match at each step. */
export function at(node: XNode | undefined, ...steps: [string, string][]): XNode | undefined {
  let cur = node;
  for (const [ns, name] of steps) cur = child(cur, ns, name);
  return cur;
}

export function attr(node: XNode | undefined, name: string, ns?: string): string | undefined {
  return node?.attrs[ns ? `{${ns}}${name}` : name];
}

/** `xml:lang` of an element; ILCD's schema default is "en" when it is absent or empty. */
export function langOf(node: XNode): string {
  const l = node.attrs[`{${XML_NS}}lang`];
  return l ? l.toLowerCase() : 'en';
}
