import { tableOf } from '../util/memo.js';
import { refOf, type Ref } from './ref.js';
import { NS } from './ilcd.js';
import { fromLatin1, type ByteView } from './safety.js';
import { attributesOf, newToken, readToken, type Token } from './tokens.js';
import type { LangText } from './ref.js';
import { checkWellFormed } from './wellformed.js';
import { attr, child, childrenOf, decodeEntities, parseXml, XML_NS, type XNode } from './xml.js';

/**
 * Index-only reading of process datasets (docs/performance.md). The index fields sit in the first
 * sections of a process dataset; `exchanges` and `LCIAResults` (80-90% of an EPD's bytes) are only
 * needed for their references, the reference exchange and the LCIA module codes. So the head is
 * parsed with fast-xml-parser and the body is scanned here, tag by tag, for those facts alone.
 * Anything this scanner does not expect returns undefined and the caller parses the whole
 * document instead, so unusual files lose speed, never correctness.
 */

/** What the rules and the index need from the body, whichever way it was read. */
export interface BodyFacts {
  /** Number of LCIAResult elements. */
  lciaResults: number;
  /** `@epd:module` of each LCIAResult/common:other/epd:amount, in document order (undefined: absent). */
  amountModules: (string | undefined)[];
}

/** One impact indicator of an EPD: `LCIAResults/LCIAResult` (ilcd-epd-format.md §4). */
export interface LciaResult {
  /** The LCIA method dataset's UUID (identifies the indicator) and its names per language. */
  method?: string;
  names: LangText[];
  /** The unit group's short descriptions (e.g. `kg CO_(2)-Äq.`). */
  units: LangText[];
  /** `epd:amount` per module and scenario, in document order; `value` as written, '' when declared but empty. */
  amounts: { module: string; scenario?: string; value: string }[];
}

export interface SplitDocument {
  /** The head (everything before the body) closed with the root end tag: a well-formed document when the head is. */
  head: string;
  /** Builds a document of the root start tag, the `exchanges` start tag and the given exchanges, for grafting. */
  exchangesDocument(internalIds: readonly string[]): string | undefined;
  /**
   * A document of the root start tag and the `LCIAResults` element alone (the EPD pages' results; an empty root when
   * there is none); undefined when the head may hide markup (an open comment, CDATA or PI): parse the whole document.
   */
  lciaDocument(): string | undefined;
  /** Where lciaDocument's parts lie in the scanned text (see LciaSpan); undefined as lciaDocument. */
  lciaSpan(): LciaSpan | undefined;
  /** References in the body, with the XPaths a full parse gives them (collectRefs in extract.ts). */
  refs: Ref[];
  body: BodyFacts;
  /**
   * With `collectLcia`: the results of the first LCIAResults element, read by this scan: what scanLcia gives for
   * lciaDocument. Undefined where the scan leaves them to scanLcia (a comment or an element inside a text read, a
   * namespace declared with white space, a CR or a reference in its value).
   */
  lciaResults?: LciaResult[];
}

/**
 * Offsets of the root start tag [0, 1) and of the `LCIAResults` element [2, 3) (equal when there is none) in a scanned
 * text: enough to cut out lciaDocument again from the same bytes without a second scan (the EPD pages, lcia.ts).
 */
export type LciaSpan = readonly [number, number, number, number];

/** The LCIA document of a span, its parts cut out by `slice` (decoded text of [from, to)). */
export function lciaDocumentAt(slice: (from: number, to: number) => string, [r0, r1, l0, l1]: LciaSpan): string {
  const start = slice(r0, r1);
  return `${start}${l1 > l0 ? slice(l0, l1) : ''}</${/^<([^\s/>]+)/.exec(start)![1]}>`;
}

const NAME = '[A-Za-z_][\\w.\\-]*(?::[A-Za-z_][\\w.\\-]*)?';
/** One markup token at a known `<`: a tag (start, end or empty), a comment, CDATA or a PI. */
const TOKEN = new RegExp(
  `<(?:(/)?(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/)?>|!--[\\s\\S]*?-->|!\\[CDATA\\[[\\s\\S]*?\\]\\]>|\\?[\\s\\S]*?\\?>)`,
  'y',
);
const BODY_START = /<(?:[A-Za-z_][\w.-]*:)?(?:exchanges|LCIAResults)[\s/>]/g;

/** An open (or, for references, a passed) element. */
interface Frame {
  qname: string;
  scope: Map<string, string>;
  /** Parent element (undefined for the root) and this element's position among its same-named siblings. */
  up: Frame | undefined;
  pos: number;
  /** Children seen so far per qname (created on the first child): final once the element is closed. */
  counts?: Map<string, number>;
  /** [namespace, local name], once asked for. */
  name?: [string, string];
  /** What the element is to the scan, when anything (worked out from its parent's role: no walk up the stack). */
  role?: Role;
  /** What the element is to the LCIA results collected (LciaCollector), and its language or amount. */
  lcia?: LciaRole;
  lang?: string;
  amount?: LciaResult['amounts'][number];
}

type Role = 'exchanges' | 'exchange' | 'results' | 'result' | 'other' | 'amount';

/** The role of a child named [ns, local] of an element of role `parent` (undefined: a child of the root). */
function roleOf(parent: Role | undefined, ns: string, local: string): Role | undefined {
  if (parent === undefined)
    return ns !== NS.process ? undefined : local === 'exchanges' ? 'exchanges' : local === 'LCIAResults' ? 'results' : undefined;
  if (parent === 'exchanges') return ns === NS.process && local === 'exchange' ? 'exchange' : undefined;
  if (parent === 'results') return ns === NS.process && local === 'LCIAResult' ? 'result' : undefined;
  if (parent === 'result') return ns === NS.common && local === 'other' ? 'other' : undefined;
  return parent === 'other' && ns === NS.epd && local === 'amount' ? 'amount' : undefined;
}

/** Whether `word` occurs in [from, to) of the text; asked with ever larger `from`, so each occurrence is searched for once. */
class Occurs {
  private at = -2;
  constructor(
    private readonly text: string,
    private readonly word: string,
  ) {}
  within(from: number, to: number): boolean {
    if (this.at !== -1 && this.at < from) this.at = this.text.indexOf(this.word, from);
    return this.at >= 0 && this.at + this.word.length <= to;
  }
}

const PREFIX: Record<string, string> = { [NS.common]: 'common:', [NS.epd]: 'epd:', [NS.epd2]: 'epd2:' };

/**
 * Split a process dataset into head and scanned body; undefined when the document is not one this can read safely.
 * The document must be well-formed (checkWellFormed): the scan reads tags, not every rule of XML. A ByteView is
 * scanned as bytes; only the head, the spans cut out and the attribute values read are decoded.
 */
export function splitProcess(src: string | ByteView, collectLcia = false): SplitDocument | undefined {
  const text = typeof src === 'string' ? src : src.text;
  // Values of a view are latin1: decoded before their entities (a reference may stand for a non-ASCII character).
  const value = typeof src === 'string' ? decodeEntities : (v: string) => decodeEntities(fromLatin1(v));
  const slice = typeof src === 'string' ? (a: number, b: number) => text.slice(a, b) : (a: number, b: number) => src.decode(a, b);
  const rootAt = firstElement(text);
  if (rootAt < 0) return undefined;
  TOKEN.lastIndex = rootAt;
  const rm = TOKEN.exec(text);
  if (!rm || rm[1] || rm[4] || !rm[2]) return undefined;
  const rootQName = rm[2];
  const memo: BodyMemo = { scopes: new Map(), amounts: new Map(), derived: new Map() };
  const rootScope = declare(new Map([['xml', XML_NS]]), attributesOf(rm[3] ?? ''), value, memo);
  if (!rootScope) return undefined;
  const rootNs = rootScope.get(prefixOf(rootQName)) ?? '';
  if (rootNs !== NS.process || localOf(rootQName) !== 'processDataSet') return undefined;
  const rootEnd = TOKEN.lastIndex;
  const rootStart = slice(rootAt, rootEnd);
  BODY_START.lastIndex = TOKEN.lastIndex;
  const bm = BODY_START.exec(text);
  if (!bm) return undefined;
  const bodyAt = bm.index;
  const end = text.lastIndexOf(`</${rootQName}`);
  if (end < bodyAt) return undefined;

  const root: Frame = { qname: rootQName, scope: rootScope, up: undefined, pos: 1 };
  const stack: Frame[] = [root];
  const refs: { at: Frame; attrs: Record<string, string> }[] = [];
  const exchanges = new Map<string, [number, number]>();
  // Sibling positions are counted per qname: sound while a prefix means one namespace throughout the body.
  const bound = new Map(rootScope);
  let exchangesTag: { qname: string; start: string } | undefined;
  let openExchange: { id: string; at: number } | undefined;
  // The first LCIAResults element: its frame while open, then its span.
  let lcia: { frame?: Frame; at: number; end?: number } | undefined;
  const body: BodyFacts = { lciaResults: 0, amountModules: [] };
  let i = bodyAt;
  const t = newToken();
  const xmlnsAt = new Occurs(text, 'xmlns');
  const refAt = new Occurs(text, 'refObjectId');
  const lc = collectLcia ? new LciaCollector(text, typeof src === 'string' ? (v: string) => v : fromLatin1, rm[3] ?? '') : undefined;
  for (;;) {
    if (!readToken(text, i, t)) return undefined;
    const qname = t.qname;
    if (t.kind === 2) {
      lc?.markup();
      i = t.end; // comment, CDATA or PI
    } else if (t.kind === 1) {
      const top = stack.pop()!;
      if (lc && top.lcia) lc.end(top, stack[stack.length - 1]!, i);
      if (lcia && lcia.frame === top) {
        lcia = { at: lcia.at, end: t.end };
      }
      if (qname !== top.qname) return undefined;
      if (stack.length === 0) {
        if (i !== end || !onlyProlog(text, t.end)) return undefined;
        break;
      }
      if (openExchange && stack.length === 2) {
        exchanges.set(openExchange.id, [openExchange.at, t.end]);
        openExchange = undefined;
      }
      i = t.end;
    } else {
      const parent = stack[stack.length - 1]!;
      const hasXmlns = xmlnsAt.within(t.attrsFrom, t.attrsTo);
      const hasRef = refAt.within(t.attrsFrom, t.attrsTo);
      const rawAttrs =
        hasXmlns || hasRef || parent.role === 'exchanges' || parent.role === 'other' ? text.slice(t.attrsFrom, t.attrsTo) : '';
      let list: [string, string][] | undefined;
      let scope = parent.scope;
      if (hasXmlns) {
        // Exports repeat the same declarations on every epd:amount: each distinct tag is worked out once per scope.
        const known = tableOf(memo.scopes, parent.scope);
        let s = known.get(rawAttrs);
        if (s === undefined) known.set(rawAttrs, (s = declare(parent.scope, (list = attributesOf(rawAttrs)), value, memo, bound) ?? null));
        if (!s) return undefined;
        scope = s;
      }
      const counts = (parent.counts ??= new Map<string, number>());
      const pos = (counts.get(qname) ?? 0) + 1;
      counts.set(qname, pos);
      const frame: Frame = { qname, scope, up: parent, pos };
      // Roles: children of the root and of elements with a role (the LCIA results' epd:amount sit 4 deep).
      let role: Role | undefined;
      if (parent === root || parent.role !== undefined) {
        const name = nameOf(frame);
        if (!name) return undefined;
        role = frame.role = roleOf(parent.role, name[0], name[1]);
      }
      if (role === 'exchanges' && !exchangesTag && !t.empty) exchangesTag = { qname, start: slice(i, t.end) };
      if (role === 'results' && !lcia) {
        lcia = t.empty ? { at: i, end: t.end } : { frame, at: i };
        if (lc) {
          lc.plainDeclarations(t);
          if (!t.empty) frame.lcia = 'lcia';
        }
      } else if (lc && (parent.lcia !== undefined || lc.inText())) lc.start(frame, parent.lcia, t);
      if (role === 'result') body.lciaResults++;
      if (role === 'exchange' || role === 'amount' || hasRef) {
        let attrs: Record<string, string> | null | undefined;
        if (role === 'amount') {
          // Exports write a few dozen distinct epd:amount tags, each many times: read once per scope.
          const known = tableOf(memo.amounts, scope);
          attrs = known.get(rawAttrs);
          if (attrs === undefined) known.set(rawAttrs, (attrs = readAttrs(list ?? attributesOf(rawAttrs), scope, value) ?? null));
        } else attrs = readAttrs(list ?? attributesOf(rawAttrs), scope, value);
        if (!attrs) return undefined;
        if (attrs['refObjectId'] !== undefined && attrs['type'] !== undefined) {
          // Short descriptions are kept only on references to sources; those are read by a full parse.
          if (attrs['type'].trim().toLowerCase() === 'source data set') return undefined;
          refs.push({ at: frame, attrs });
        }
        if (role === 'exchange') {
          const id = attrs['dataSetInternalID']?.trim();
          if (id !== undefined && !exchanges.has(id)) {
            if (t.empty) exchanges.set(id, [i, t.end]);
            else openExchange = { id, at: i };
          }
        }
        if (role === 'amount') body.amountModules.push(attrs[EPD_MODULE]?.trim());
      }
      if (!t.empty) stack.push(frame);
      i = t.end;
    }
    const next = text.indexOf('<', i);
    if (next < 0) return undefined;
    i = next;
  }

  const bodyRefs: Ref[] = [];
  for (const r of refs) {
    const ref = toRef(r.at, r.attrs);
    if (!ref) return undefined;
    bodyRefs.push(ref);
  }
  // No LCIAResults: no results, as scanLcia reads the root alone.
  const lciaResults = lc?.results();
  return {
    head: `${slice(0, bodyAt)}</${rootQName}>`,
    refs: bodyRefs,
    body,
    ...(lciaResults ? { lciaResults } : {}),
    lciaDocument() {
      const span = this.lciaSpan();
      return span && lciaDocumentAt(slice, span);
    },
    lciaSpan() {
      // The body was found by a search, not by the tokenizer: it must not start inside a comment, CDATA or a PI.
      const open = (a: string, b: string) => text.lastIndexOf(a, bodyAt) > text.lastIndexOf(b, bodyAt);
      if (open('<!--', '-->') || open('<![CDATA[', ']]>') || open('<?', '?>')) return undefined;
      return lcia?.end === undefined ? [rootAt, rootEnd, 0, 0] : [rootAt, rootEnd, lcia.at, lcia.end];
    },
    exchangesDocument(ids) {
      const spans = ids.flatMap((id) => (exchanges.has(id) ? [exchanges.get(id)!] : []));
      if (!exchangesTag || !spans.length) return undefined;
      return `${rootStart}${exchangesTag.start}${spans.map(([a, b]) => slice(a, b)).join('')}</${exchangesTag.qname}></${rootQName}>`;
    },
  };
}

export interface IndexOnlyRead {
  /** The head with the reference exchange(s) grafted in: all the index, the links and the rules read. */
  root: XNode;
  body: BodyFacts;
  /** splitProcess's lciaSpan: where the EPD page finds the LCIA results again. */
  lcia: LciaSpan | undefined;
  /** With `collectLcia`, splitProcess's lciaResults. */
  lciaResults?: LciaResult[];
  /** The references of the whole document, given those extracted from `root`. */
  references(fromRoot: readonly Ref[]): Ref[];
}

/**
 * Parse the head and the reference exchange only; undefined when the document needs a full parse.
 * `checked`: the whole text passed checkWellFormed, so its parts need no second check.
 */
export function readIndexOnly(src: string | ByteView, checked = false, collectLcia = false): IndexOnlyRead | undefined {
  if (!checked && !checkWellFormed(typeof src === 'string' ? src : src.text, undefined, typeof src !== 'string').ok) return undefined;
  checked = true;
  const split = splitProcess(src, collectLcia);
  if (!split) return undefined;
  const head = parseXml(split.head, { checked });
  if (!head.ok) return undefined;
  const root = head.root;
  const P = NS.process;
  const ids = childrenOf(child(child(root, P, 'processInformation'), P, 'quantitativeReference'), P, 'referenceToReferenceFlow').map((n) =>
    n.text.trim(),
  );
  const doc = split.exchangesDocument(ids);
  if (doc) {
    const ex = parseXml(doc, { checked });
    if (!ex.ok) return undefined;
    root.children.push(...ex.root.children);
  }
  return {
    root,
    body: split.body,
    lcia: split.lciaSpan(),
    ...(split.lciaResults ? { lciaResults: split.lciaResults } : {}),
    // The grafted exchanges were walked out of context: their references come from the scan, with true positions.
    references: (fromRoot) => [...fromRoot.filter((r) => !r.xpath.startsWith('/processDataSet/exchanges/')), ...split.refs],
  };
}

/** Body facts from a fully parsed document (the same facts splitProcess scans for). */
export function bodyFactsOf(root: XNode): BodyFacts {
  const results = childrenOf(child(root, NS.process, 'LCIAResults'), NS.process, 'LCIAResult');
  const amounts = results.flatMap((r) => childrenOf(child(r, NS.common, 'other'), NS.epd, 'amount'));
  return { lciaResults: results.length, amountModules: amounts.map((a) => attr(a, 'module', NS.epd)?.trim()) };
}

export type LciaRole = 'lcia' | 'result' | 'method' | 'other' | 'unit' | 'description' | 'amount';

/**
 * What an element named [ns, local] is to the LCIA results, given its parent's role (`lcia`: the LCIAResults element).
 * Only the first method reference, `common:other` and unit group reference of a result count: `result.seen` marks
 * them as they are met. The rules of extractLciaResults, for scanLcia (lcia.ts) and LciaCollector alike.
 */
export function lciaRoleOf(
  pr: LciaRole | undefined,
  ns: string,
  local: string,
  result: { seen: number } | undefined,
): LciaRole | undefined {
  let role: LciaRole | undefined;
  if (pr === 'lcia') role = ns === NS.process && local === 'LCIAResult' ? 'result' : undefined;
  else if (pr === 'result') {
    if (ns === NS.process && local === 'referenceToLCIAMethodDataSet' && !(result!.seen & 1)) role = 'method';
    else if (ns === NS.common && local === 'other' && !(result!.seen & 2)) role = 'other';
    if (role) result!.seen |= role === 'method' ? 1 : 2;
  } else if (pr === 'other' && ns === NS.epd) {
    if (local === 'referenceToUnitGroupDataSet' && !(result!.seen & 4)) role = 'unit';
    else if (local === 'amount') role = 'amount';
    if (role === 'unit') result!.seen |= 4;
  } else if ((pr === 'method' || pr === 'unit') && ns === NS.common && local === 'shortDescription') role = 'description';
  return role;
}

/**
 * The LCIA results of the first LCIAResults element, collected from the body scan's tokens as scanLcia (lcia.ts)
 * collects them from its own scan of the element: the same roles (the first method reference, `common:other` and unit
 * group reference of a result count), the same texts (trimmed, entities decoded, trimmed) and attribute values. Where
 * the two could read a document differently it declines, and the caller scans the element: a comment, CDATA, PI or
 * element inside a text read (scanLcia declines too), a namespace declared with white space at its ends, a CR or a
 * reference in its value (scanLcia trims and normalises it, the body scan does not). Line ends are normalised as
 * scanLcia does.
 */
class LciaCollector {
  declined = false;
  private readonly out: (LciaResult & { seen: number })[] = [];
  private result: (LciaResult & { seen: number }) | undefined;
  private textFrom = -1;
  /** Attributes by tag text as written (exports repeat a few dozen `epd:amount` tags). */
  private readonly lists = new Map<string, [string, string][]>();
  private readonly plain = new Map<string, boolean>();

  constructor(
    private readonly text: string,
    private readonly decode: (v: string) => string,
    rootAttrs: string,
  ) {
    if (!this.plainAttrs(rootAttrs)) this.declined = true;
  }

  inText(): boolean {
    return this.textFrom >= 0;
  }

  /** A comment, CDATA section or PI. */
  markup(): void {
    if (this.textFrom >= 0) this.declined = true;
  }

  plainDeclarations(t: Token): void {
    if (!this.plainAttrs(this.text.slice(t.attrsFrom, t.attrsTo))) this.declined = true;
  }

  start(frame: Frame, pr: LciaRole | undefined, t: Token): void {
    if (this.declined) return;
    const raw = this.text.slice(t.attrsFrom, t.attrsTo);
    if (this.textFrom >= 0 || !this.plainAttrs(raw)) {
      this.declined = true;
      return;
    }
    const name = nameOf(frame);
    if (!name) {
      this.declined = true;
      return;
    }
    const [ns, local] = name;
    const r = this.result;
    const role = lciaRoleOf(pr, ns, local, r);
    if (!role) return;
    frame.lcia = role;
    if (role === 'result') {
      this.result = { names: [], units: [], amounts: [], seen: 0 };
      this.out.push(this.result);
    } else if (role === 'method') {
      const method = this.attr(raw, frame.scope, 'refObjectId')?.trim().toLowerCase();
      if (method) r!.method = method;
    } else if (role === 'description') {
      const l = this.attr(raw, frame.scope, LANG);
      frame.lang = l ? l.toLowerCase() : 'en';
    } else if (role === 'amount') {
      const module = this.attr(raw, frame.scope, LCIA_MODULE)?.trim();
      const scenario = this.attr(raw, frame.scope, LCIA_SCENARIO)?.trim();
      const amount = scenario ? { module: module ?? '', scenario, value: '' } : { module: module ?? '', value: '' };
      if (t.empty) {
        if (amount.module) r!.amounts.push(amount);
      } else frame.amount = amount;
    }
    if ((role === 'description' || role === 'amount') && !t.empty) this.textFrom = t.end;
  }

  /** The end tag (at `lt`) of an element with a role; `parent` is the element around it. */
  end(top: Frame, parent: Frame, lt: number): void {
    if (this.declined) return;
    if (this.textFrom >= 0) {
      const value = decodeEntities(lf(this.decode(this.text.slice(this.textFrom, lt))).trim()).trim();
      this.textFrom = -1;
      if (top.lcia === 'amount') top.amount!.value = value;
      else if (value !== '') (parent.lcia === 'method' ? this.result!.names : this.result!.units).push({ lang: top.lang ?? 'en', value });
    }
    if (top.lcia === 'amount' && top.amount!.module) this.result!.amounts.push(top.amount!);
  }

  results(): LciaResult[] | undefined {
    if (this.declined) return undefined;
    // Key order as extractLciaResults builds them.
    return this.out.map(({ method, names, units, amounts }) => (method ? { method, names, units, amounts } : { names, units, amounts }));
  }

  /** Namespace declarations the body scan and scanLcia read alike: no white space at the ends, no reference. */
  private plainAttrs(raw: string): boolean {
    if (!raw.includes('xmlns')) return true;
    let ok = this.plain.get(raw);
    if (ok === undefined) {
      ok = this.list(raw).every(([n, v]) => !isXmlns(n) || (v === v.trim() && !v.includes('&') && !v.includes('\r')));
      this.plain.set(raw, ok);
    }
    return ok;
  }

  private list(raw: string): [string, string][] {
    let l = this.lists.get(raw);
    if (!l) this.lists.set(raw, (l = attributesOf(raw)));
    return l;
  }

  /** The first attribute named `key` (`local`, or `{uri}local` with the tag's scope): trimmed, then its references decoded. */
  private attr(raw: string, scope: Map<string, string>, key: string): string | undefined {
    for (const [n, v] of this.list(raw)) {
      const c = n.indexOf(':');
      if ((c < 0 ? n : `{${scope.get(n.slice(0, c))}}${n.slice(c + 1)}`) === key) return decodeEntities(lf(this.decode(v)).trim());
    }
    return undefined;
  }
}

/** Line ends as scanLcia reads them (it normalises the whole element; a CR LF never spans two of the pieces read). */
const lf = (s: string): string => (s.includes('\r') ? s.replace(/\r\n?/g, '\n') : s);

const LANG = `{${XML_NS}}lang`;
const LCIA_MODULE = `{${NS.epd}}module`;
const LCIA_SCENARIO = `{${NS.epd}}scenario`;

/** [namespace, local name] of an element, worked out once; undefined for an undeclared prefix. */
function nameOf(f: Frame): [string, string] | undefined {
  if (f.name) return f.name;
  const p = prefixOf(f.qname);
  const ns = f.scope.get(p);
  if (ns === undefined && p) return undefined;
  return (f.name = [ns ?? '', localOf(f.qname)]);
}

/** The reference with the XPath collectRefs (extract.ts) gives it: canonical prefixes, positions among same-named siblings. */
function toRef(at: Frame, attrs: Record<string, string>): Ref | undefined {
  let xpath = '';
  for (let f: Frame = at; f.up; f = f.up) {
    const name = nameOf(f);
    if (!name) return undefined;
    xpath = `/${PREFIX[name[0]] ?? ''}${name[1]}${f.up.counts!.get(f.qname)! > 1 ? `[${f.pos}]` : ''}${xpath}`;
  }
  return refOf((name) => (attrs[name] === undefined ? undefined : own(attrs[name])), [], own(`/processDataSet${xpath}`));
}

/**
 * `s` in memory of its own. A name or value cut from a document's view is a slice of it (V8 slices strings of 13 or
 * more characters, and a concatenation holds its parts): kept in a reference, it kept the whole 79 KB view alive with
 * the read worker's outcome, 128 KB of heap per outcome instead of 48, which each young-generation GC copied.
 */
const own = (s: string): string => (s.length < 13 ? s : ` ${s}`.slice(1));

/** Attributes by `local` (no namespace) or `{uri}local`, entities decoded; undefined on an unknown prefix or a repeat. */
function readAttrs(list: [string, string][], scope: Map<string, string>, value: (v: string) => string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const [name, raw] of list) {
    if (isXmlns(name)) continue;
    const p = prefixOf(name);
    const uri = p ? scope.get(p) : undefined;
    if (p && uri === undefined) return undefined;
    const key = p ? `{${uri}}${localOf(name)}` : name;
    if (key in out) return undefined;
    out[key] = value(raw);
  }
  return out;
}

const isXmlns = (name: string) => name === 'xmlns' || name.startsWith('xmlns:');

/**
 * The scope with the tag's namespace declarations added (a new map only when they change it); undefined when a
 * prefix is bound to a second namespace anywhere in the body (sibling positions are counted per qname).
 */
function declare(
  parent: Map<string, string>,
  list: [string, string][],
  decode: (v: string) => string,
  memo: BodyMemo,
  bound?: Map<string, string>,
): Map<string, string> | undefined {
  let scope = parent;
  for (let k = 0; k < list.length; k++) {
    const [name, raw] = list[k]!;
    if (!isXmlns(name)) continue;
    const p = name === 'xmlns' ? '' : name.slice(6);
    const value = decode(raw);
    if (p && value === '') return undefined; // undeclaring a prefix: XML 1.1 only
    // Exports repeat the root's declarations on every epd:amount: no new scope for those.
    if (scope.get(p) === value) continue;
    if (bound) {
      if (bound.has(p) && bound.get(p) !== value) return undefined;
      bound.set(p, value);
    }
    if (scope === parent) {
      // Sibling elements repeat the same declaration (epd:amount): they share one derived scope.
      const key = `${p}=${value}`;
      const derived = tableOf(memo.derived, parent);
      const known = derived.get(key);
      if (known && !list.slice(k + 1).some(([n]) => isXmlns(n))) return known;
      scope = new Map(parent);
      scope.set(p, value);
      if (!known) derived.set(key, scope);
      continue;
    }
    scope.set(p, value);
  }
  return scope;
}

/** One document's memo tables (src/util/memo.ts). */
interface BodyMemo {
  /** Scopes by parent scope and attributes as written (null: not readable). */
  scopes: Map<Map<string, string>, Map<string, Map<string, string> | null>>;
  /** Attributes of epd:amount tags by scope and attributes as written (null: not readable); shared, never changed. */
  amounts: Map<Map<string, string>, Map<string, Record<string, string> | null>>;
  /** Derived scopes by parent scope and declaration. */
  derived: Map<Map<string, string>, Map<string, Map<string, string>>>;
}
const EPD_MODULE = `{${NS.epd}}module`;

/** Offset of the root element's `<`, after the XML declaration, comments and PIs; -1 if there is none. */
function firstElement(text: string): number {
  let i = 0;
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return -1;
    if (text.startsWith('<?', lt)) i = text.indexOf('?>', lt) + 2;
    else if (text.startsWith('<!--', lt)) i = text.indexOf('-->', lt) + 3;
    else if (text[lt + 1] === '!') return -1;
    else return lt;
    if (i < 2) return -1;
  }
}

/** After the root end tag: only white space, comments and PIs. */
function onlyProlog(text: string, from: number): boolean {
  return /^(?:\s|<!--[\s\S]*?-->|<\?[\s\S]*?\?>)*$/.test(text.slice(from));
}

function prefixOf(q: string): string {
  const i = q.indexOf(':');
  return i < 0 ? '' : q.slice(0, i);
}

function localOf(q: string): string {
  const i = q.indexOf(':');
  return i < 0 ? q : q.slice(i + 1);
}
