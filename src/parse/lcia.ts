import { createHash } from 'node:crypto';
import { lciaDocumentAt, lciaRoleOf, splitProcess, type LciaResult, type LciaRole, type LciaSpan } from './body.js';
import { NS } from './ilcd.js';
import { decodeXml, viewXml, type ByteView } from './safety.js';
import { checkWellFormed } from './wellformed.js';
import { texts } from './ref.js';
import { newToken, readToken, attributesOf, type Token } from './tokens.js';
import { attr, child, childrenOf, decodeEntities, parseXml, XML_NS, type XNode } from './xml.js';
import { tableOf } from '../util/memo.js';

export type { LciaResult } from './body.js';

/** Modules in EN 15804 order; others (never seen) sort after them, as written. */
export const MODULE_ORDER = ['A1', 'A2', 'A3', 'A1-A3', 'A4', 'A5', 'B1', 'B2', 'B3', 'B4', 'B5', 'B6', 'B7', 'C1', 'C2', 'C3', 'C4', 'D'];

/**
 * The optional ("additional") impact indicators of EN 15804+A2 by LCIA method UUID (EF 3.0 method datasets, as the IBU
 * and EPD International samples reference them): PM, IRP, ETP-fw, HTP-c, HTP-nc, SQP. The others are its core ones.
 */
export const ADDITIONAL_INDICATORS: ReadonlySet<string> = new Set([
  'b5c602c6-def3-11e6-bf01-fe55135034f3',
  'b5c632be-def3-11e6-bf01-fe55135034f3',
  'ee1082d1-b0f7-43ca-a1f0-21e2a4a74511',
  '2299222a-bbd8-474f-9d4f-4dd1f18aea7c',
  '3af763a5-b7a1-48c9-9cee-1f223481fcef',
  'b2ad6890-c78d-11e6-9d9d-cec0c932ce01',
]);

/** The LCIA results of a parsed process dataset; amounts without a module are skipped (a rule reports them). */
export function extractLciaResults(root: XNode): LciaResult[] {
  const P = NS.process;
  return childrenOf(child(root, P, 'LCIAResults'), P, 'LCIAResult').map((r) => {
    const m = child(r, P, 'referenceToLCIAMethodDataSet');
    const other = child(r, NS.common, 'other');
    const unit = child(other, NS.epd, 'referenceToUnitGroupDataSet');
    const amounts: LciaResult['amounts'] = [];
    for (const a of childrenOf(other, NS.epd, 'amount')) {
      const module = attr(a, 'module', NS.epd)?.trim();
      if (!module) continue;
      const scenario = attr(a, 'scenario', NS.epd)?.trim();
      amounts.push({ module, ...(scenario ? { scenario } : {}), value: a.text.trim() });
    }
    const method = attr(m, 'refObjectId')?.trim().toLowerCase();
    return {
      ...(method ? { method } : {}),
      names: texts(childrenOf(m, NS.common, 'shortDescription')),
      units: texts(childrenOf(unit, NS.common, 'shortDescription')),
      amounts,
    };
  });
}

/**
 * What the reader knew of an EPD's bytes: their digest and, where it recorded it, the span of the LCIA results. The
 * bytes read again for the page are those only if the digest is the same.
 */
export interface LciaAt {
  span?: LciaSpan;
  sha256: string;
}

/**
 * The LCIA results of an accepted process document. Only the `LCIAResults` element is read: cut out at the span
 * recorded when the document was read (`at`, if the bytes are still those), else found by the body scanner
 * (src/parse/body.ts); then scanned here (scanLcia). A document the scanners do not read is parsed whole. A document
 * that does not parse has no results to show. The scanners and the tree builder assume a well-formed document: bytes
 * that are not the ones checked when the EPD was read (the file changed since, or no digest was given) are checked
 * first; a truncated file had sent the tree builder into an endless loop.
 */
export function readLciaResults(bytes: Uint8Array, at?: LciaAt): LciaResult[] {
  const same = at !== undefined && sha256Of(bytes) === at.sha256;
  const recorded = same && at.span ? lciaResultsAt(bytes, at.span) : undefined;
  if (recorded !== undefined) return recorded;
  // Scanned as bytes: only the LCIAResults element is decoded.
  const src = viewXml(bytes) ?? decodeXml(bytes);
  if ('ok' in src && !src.ok) return [];
  const view = 'ok' in src ? src.text : src;
  // A split document passed the well-formedness check; one the scan does not read is checked on its own.
  const split = splitProcess(view);
  if (!split && !same && !wellFormed(view)) return [];
  return resultsOf(split?.lciaDocument(), () => (typeof view === 'string' ? view : view.decode()));
}

/**
 * The LCIA results of an accepted process document at the span the reader recorded, from the bytes it checked (no
 * digest compared: the caller holds those very bytes); undefined if the span does not fit them.
 */
export function lciaResultsAt(bytes: Uint8Array, span: LciaSpan): LciaResult[] | undefined {
  const recorded = documentAtSpan(bytes, span);
  return recorded === undefined ? undefined : resultsOf(recorded, () => recorded);
}

/** checkWellFormed on a view, then (a view cannot judge every name) on the decoded text. */
function wellFormed(src: string | ByteView): boolean {
  if (typeof src !== 'string' && checkWellFormed(src.text, undefined, true).ok) return true;
  return checkWellFormed(typeof src === 'string' ? src : src.decode()).ok;
}

/** The results of an LCIA document (scanned; parsed when the scan declines), else of the whole document. */
function resultsOf(lcia: string | undefined, whole: () => string): LciaResult[] {
  const quick = lcia === undefined ? undefined : scanLcia(lcia);
  if (quick) return quick;
  const parsed = parseXml(lcia ?? whole(), { checked: true });
  return parsed.ok ? extractLciaResults(parsed.root) : [];
}

/** The LCIA document at a recorded span; undefined unless the bytes are the ones it was recorded in (a changed file). */
export function recordedLciaDocument(bytes: Uint8Array, { span, sha256 }: Required<LciaAt>): string | undefined {
  return sha256Of(bytes) === sha256 ? documentAtSpan(bytes, span) : undefined;
}

const sha256Of = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The LCIA document cut out of bytes known to be those the span was recorded in; undefined if it does not fit them. */
function documentAtSpan(bytes: Uint8Array, span: LciaSpan): string | undefined {
  const [r0, r1, l0, l1] = span;
  const n = bytes.length;
  if (!(r0 >= 0 && r0 < r1 && r1 <= n && (l1 <= l0 || (l0 >= r1 && l1 <= n)))) return undefined;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return lciaDocumentAt((a, b) => buf.toString('utf8', a, b), span);
}

/** An open element of scanLcia: its namespace scope and what it is to the results. */
interface Open {
  scope: Map<string, string>;
  role: LciaRole | undefined;
  lang?: string;
  amount?: LciaResult['amounts'][number];
}

/** A start tag as scanLcia reads it: worked out once per document for each distinct tag text and parent scope. */
interface Tag {
  scope: Map<string, string>;
  ns: string;
  local: string;
  /** [`local` or `{uri}local`, value trimmed and entities decoded] per attribute, in document order. */
  attrs: [string, string][];
}

/**
 * extractLciaResults on the text of a well-formed LCIA document (root start tag, LCIAResults, root end tag) without
 * building a tree: a third of the cost of fast-xml-parser's. Texts are read as that parser gives them (attribute
 * values and texts trimmed, then entities decoded; line ends normalised). Undefined when a text it reads is not one
 * plain run (a comment, CDATA or an element inside): the caller parses the document instead.
 */
export function scanLcia(doc: string): LciaResult[] | undefined {
  const text = doc.includes('\r') ? doc.replace(/\r\n?/g, '\n') : doc;
  const P = NS.process;
  const t = newToken();
  const stack: Open[] = [];
  const out: (LciaResult & { seen: number })[] = [];
  // Exports repeat the same tags (`<epd:amount xmlns:epd="..." epd:module="A1-A3">` in every result): each is read once.
  const tags = new Map<Map<string, string>, Map<string, Tag>>();
  let result: (LciaResult & { seen: number }) | undefined;
  let textFrom = -1;
  let i = text.indexOf('<');
  while (i >= 0) {
    if (!readToken(text, i, t)) return undefined;
    const top = stack[stack.length - 1];
    if (t.kind === 2) {
      if (textFrom >= 0) return undefined;
    } else if (t.kind === 1) {
      stack.pop();
      if (textFrom >= 0) {
        const value = decodeEntities(text.slice(textFrom, i).trim()).trim();
        textFrom = -1;
        const parent = stack[stack.length - 1]!;
        if (top!.role === 'amount') top!.amount!.value = value;
        else if (value !== '') (parent.role === 'method' ? result!.names : result!.units).push({ lang: top!.lang ?? 'en', value });
      }
      if (top!.role === 'amount' && top!.amount!.module) result!.amounts.push(top!.amount!);
    } else {
      // An element inside a text read (a description's or an amount's).
      if (textFrom >= 0) return undefined;
      const parentScope = top?.scope ?? ROOT_SCOPE;
      const known = tableOf(tags, parentScope);
      const key = text.slice(i + 1, t.attrsTo);
      let tag = known.get(key);
      if (!tag) known.set(key, (tag = readTag(text, t, parentScope)));
      const { ns, local } = tag;
      const pr = top?.role;
      let role: Open['role'];
      // The document holds one LCIAResults, the root's only child (SplitDocument.lciaDocument).
      if (stack.length === 1) role = ns === P && local === 'LCIAResults' ? 'lcia' : undefined;
      else role = lciaRoleOf(pr, ns, local, result);
      if ((role === 'description' || role === 'amount') && !t.empty) textFrom = t.end;
      const open: Open = { scope: tag.scope, role };
      if (role === 'result') {
        result = { names: [], units: [], amounts: [], seen: 0 };
        out.push(result);
      } else if (role === 'method') {
        const method = attrOf(tag, 'refObjectId')?.trim().toLowerCase();
        if (method) result!.method = method;
      } else if (role === 'description') {
        const l = attrOf(tag, XML_LANG);
        open.lang = l ? l.toLowerCase() : 'en';
      } else if (role === 'amount') {
        const module = attrOf(tag, EPD_MODULE)?.trim();
        const scenario = attrOf(tag, EPD_SCENARIO)?.trim();
        // Literals, not a spread of an optional part: object spread was a tenth of the scan.
        open.amount = scenario ? { module: module ?? '', scenario, value: '' } : { module: module ?? '', value: '' };
      }
      if (t.empty) {
        if (role === 'amount' && open.amount!.module) result!.amounts.push(open.amount!);
      } else stack.push(open);
    }
    i = text.indexOf('<', t.end);
  }
  // Key order as extractLciaResults builds them.
  return out.map(({ method, names, units, amounts }) => (method ? { method, names, units, amounts } : { names, units, amounts }));
}

const XML_LANG = `{${XML_NS}}lang`;
const EPD_MODULE = `{${NS.epd}}module`;
const EPD_SCENARIO = `{${NS.epd}}scenario`;
const ROOT_SCOPE = new Map([['xml', XML_NS]]);

/** The scope, name and attributes of a start tag (`t`, read at its `<` in `text`) under its parent's scope. */
function readTag(text: string, t: Token, parent: Map<string, string>): Tag {
  const list = t.attrsTo > t.attrsFrom ? attributesOf(text.slice(t.attrsFrom, t.attrsTo)) : [];
  let scope = parent;
  for (const [n, v] of list) {
    if (n !== 'xmlns' && !n.startsWith('xmlns:')) continue;
    const p = n === 'xmlns' ? '' : n.slice(6);
    const uri = decodeEntities(v.trim());
    // A declaration that changes nothing (exports repeat the root's on every epd:amount) keeps the parent's scope.
    if (scope.get(p) === uri) continue;
    if (scope === parent) scope = new Map(scope);
    scope.set(p, uri);
  }
  const colon = t.qname.indexOf(':');
  const attrs = list.map(([n, v]): [string, string] => {
    const c = n.indexOf(':');
    return [c < 0 ? n : `{${scope.get(n.slice(0, c))}}${n.slice(c + 1)}`, decodeEntities(v.trim())];
  });
  return {
    scope,
    ns: scope.get(colon < 0 ? '' : t.qname.slice(0, colon)) ?? '',
    local: colon < 0 ? t.qname : t.qname.slice(colon + 1),
    attrs,
  };
}

/** The first attribute of a tag by `local` or `{uri}local`. */
function attrOf(tag: Tag, key: string): string | undefined {
  for (const [k, v] of tag.attrs) if (k === key) return v;
  return undefined;
}
