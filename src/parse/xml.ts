import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** An element with its namespace resolved; attribute keys are `local` or `{uri}local`. */
export interface XNode {
  ns: string;
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
  text: string;
}

export const XML_NS = 'http://www.w3.org/XML/1998/namespace';

export type ParseResult = { ok: true; root: XNode } | { ok: false; message: string; line?: number; col?: number };

const ATTR = '@_';
const parser = new XMLParser({
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
  tagValueProcessor: (_name: string, value: string) => decodeEntities(value),
  attributeValueProcessor: (_name: string, value: string) => decodeEntities(value),
});

/** Parse well-formed XML into a namespace-aware tree; never matches on prefixes. */
export function parseXml(text: string): ParseResult {
  const valid = XMLValidator.validate(text, { allowBooleanAttributes: false });
  if (valid !== true) {
    return { ok: false, message: valid.err.msg, line: valid.err.line, col: valid.err.col };
  }
  let doc: Record<string, unknown>;
  try {
    doc = parser.parse(text) as Record<string, unknown>;
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
  const roots = Object.keys(doc).filter((k) => !k.startsWith('?') && k !== '#text');
  if (roots.length !== 1) return { ok: false, message: `expected exactly one root element, found ${roots.length}` };
  const rootName = roots[0]!;
  const value = doc[rootName];
  const scope = new Map<string, string>([['xml', XML_NS]]);
  const node = toNode(rootName, Array.isArray(value) ? value[0] : value, scope);
  return { ok: true, root: node };
}

function toNode(qname: string, value: unknown, parentScope: Map<string, string>): XNode {
  const obj = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  let scope = parentScope;
  if (obj) {
    for (const key of Object.keys(obj)) {
      if (key === `${ATTR}xmlns` || key.startsWith(`${ATTR}xmlns:`)) {
        if (scope === parentScope) scope = new Map(parentScope);
        scope.set(key === `${ATTR}xmlns` ? '' : key.slice(ATTR.length + 6), String(obj[key]));
      }
    }
  }
  const [prefix, local] = splitQName(qname);
  const node: XNode = { ns: scope.get(prefix) ?? '', name: local, attrs: {}, children: [], text: '' };
  if (!obj) {
    node.text = value === undefined || value === null ? '' : String(value);
    return node;
  }
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (key === '#text') {
      node.text = String(v);
    } else if (key.startsWith(ATTR)) {
      const an = key.slice(ATTR.length);
      if (an === 'xmlns' || an.startsWith('xmlns:')) continue;
      const [ap, al] = splitQName(an);
      // Unprefixed attributes are in no namespace (XML Namespaces §6.2).
      node.attrs[ap ? `{${scope.get(ap) ?? ap}}${al}` : al] = String(v);
    } else {
      for (const item of Array.isArray(v) ? v : [v]) node.children.push(toNode(key, item, scope));
    }
  }
  return node;
}

function splitQName(q: string): [string, string] {
  const i = q.indexOf(':');
  return i < 0 ? ['', q] : [q.slice(0, i), q.slice(i + 1)];
}

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
