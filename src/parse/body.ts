import { tableOf } from '../util/memo.js';
import { refOf, type Ref } from './ref.js';
import { NS } from './ilcd.js';
import { fromLatin1, type ByteView } from './safety.js';
import { attributesOf } from './tokens.js';
import type { LangText } from './ref.js';
import { checkWellFormed, type OpenTag, type ShapeLimits, type TokenSink } from './wellformed.js';
import { attr, child, childrenOf, decodeEntities, parseXml, XML_NS, type XNode } from './xml.js';

/**
 * Index-only reading of process datasets (docs/performance.md). The index fields sit in the first
 * sections of a process dataset; `exchanges` and `LCIAResults` (80-90% of an EPD's bytes) are only
 * needed for their references, the reference exchange and the LCIA module codes. So the head is
 * parsed into a tree (parseXml) and the body is read here, from the tokens the well-formedness check
 * tells (ProcessScan), for those facts alone.
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
   * there is none).
   */
  lciaDocument(): string;
  /** Where lciaDocument's parts lie in the scanned text (see LciaSpan). */
  lciaSpan(): LciaSpan;
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

const BODY_START = /<(?:[A-Za-z_][\w.-]*:)?(?:exchanges|LCIAResults)[\s/>]/g;

/**
 * An open (or, for references, a passed) element. Every field is there from the start (newFrame): fields added
 * later gave the frames of one document several shapes, and the scan's property reads went polymorphic.
 */
interface Frame {
  qname: string;
  scope: Map<string, string>;
  /** Parent element (undefined for the root) and this element's position among its same-named siblings. */
  up: Frame | undefined;
  pos: number;
  /**
   * Children seen so far per qname: the last run of same-named children in `run` and `runCount` (their name and the
   * count so far), the others in `counts` (created at the first change of name). Final once the element is closed.
   */
  counts: Map<string, number> | undefined;
  run: string | undefined;
  runCount: number;
  /** [namespace, local name], once asked for. */
  name: [string, string] | undefined;
  /** What the element is to the scan, when anything (worked out from its parent's role: no walk up the stack). */
  role: Role | undefined;
  /** What the element is to the LCIA results collected (LciaCollector), and its language or amount. */
  lcia: LciaRole | undefined;
  lang: string | undefined;
  amount: LciaResult['amounts'][number] | undefined;
}

function newFrame(qname: string, scope: Map<string, string>, up: Frame | undefined, pos: number): Frame {
  return {
    qname,
    scope,
    up,
    pos,
    counts: undefined,
    run: undefined,
    runCount: 0,
    name: undefined,
    role: undefined,
    lcia: undefined,
    lang: undefined,
    amount: undefined,
  };
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

const PREFIX: Record<string, string> = { [NS.common]: 'common:', [NS.epd]: 'epd:', [NS.epd2]: 'epd2:' };

/**
 * Split a process dataset into head and scanned body; undefined when the document is not well-formed
 * (checkWellFormed, with `limits`) or not one this can read safely. A ByteView is scanned as bytes; only the head,
 * the spans cut out and the attribute values read are decoded (a view whose names are not all ASCII is not read).
 */
export function splitProcess(src: string | ByteView, collectLcia = false, limits?: ShapeLimits): SplitDocument | undefined {
  const scan = new ProcessScan(src, collectLcia);
  return checkWellFormed(typeof src === 'string' ? src : src.text, limits, typeof src !== 'string', scan).ok ? scan.result() : undefined;
}

/**
 * The body scan of a process dataset, told the tokens of the well-formedness check as it passes them (one
 * tokenisation of each document, docs/performance.md): head and body split, the body's references with their
 * XPaths, the reference exchanges, the LCIA facts and, with `collectLcia`, the LCIA results. Give it to
 * checkWellFormed; once the check has passed, `result()` is what splitProcess returns.
 */
export class ProcessScan implements TokenSink {
  /** 0: before the root; 1: in the head; 2: in the body; 3: after the root; -1: not a document this reads. */
  private state = 0;
  private readonly text: string;
  private readonly value: (v: string) => string;
  private readonly slice: (from: number, to: number) => string;
  private readonly memo: BodyMemo = { scopes: new Map(), amounts: new Map(), derived: new Map() };
  private rootQName = '';
  private rootAt = 0;
  private rootEnd = 0;
  private rootStart = '';
  private bodyAt = 0;
  /** Where the root's end tag must be: the last `</root` of the text. */
  private endAt = 0;
  private root: Frame | undefined;
  private readonly stack: Frame[] = [];
  private readonly refs: { at: Frame; attrs: Record<string, string> }[] = [];
  private readonly exchanges = new Map<string, [number, number]>();
  /** Prefixes bound in the body: sibling positions are counted per qname, sound while a prefix means one namespace. */
  private bound = new Map<string, string>();
  private exchangesTag: { qname: string; start: string } | undefined;
  private openExchange: { id: string; at: number } | undefined;
  /** The first LCIAResults element: its frame while open, then its span. */
  private lcia: { frame?: Frame; at: number; end?: number } | undefined;
  private readonly body: BodyFacts = { lciaResults: 0, amountModules: [] };
  private lc: LciaCollector | undefined;

  constructor(
    private readonly src: string | ByteView,
    private readonly collectLcia = false,
  ) {
    this.text = typeof src === 'string' ? src : src.text;
    // Values of a view are latin1: decoded before their entities (a reference may stand for a non-ASCII character).
    this.value = typeof src === 'string' ? decodeEntities : (v: string) => decodeEntities(fromLatin1(v));
    this.slice = typeof src === 'string' ? (a: number, b: number) => this.text.slice(a, b) : (a: number, b: number) => src.decode(a, b);
  }

  open(tag: OpenTag): void {
    const { lt, name: qname, from, to, end, empty } = tag;
    if (this.state !== 2 && !this.enter(lt, true)) {
      if (this.state === 0) this.openRoot(lt, qname, from, to, end, empty);
      return;
    }
    const memo = this.memo;
    // What the tag's name and attribute names tell, once per distinct tag where the check keeps a memo of it.
    let facts = tag.memo?.facts as TagFacts | undefined;
    if (facts === undefined) {
      let ref = false;
      for (let k = 0; k < tag.count; k++) if (tag.names[k] === 'refObjectId') ref = true;
      facts = { plain: plainName(qname), hasRef: ref };
      if (tag.memo !== undefined) tag.memo.facts = facts;
    }
    if (!facts.plain) return this.fail();
    const hasRef = facts.hasRef;
    const parent = this.stack[this.stack.length - 1]!;
    const rawAttrs = tag.xmlns !== 0 || hasRef || parent.role === 'exchanges' || parent.role === 'other' ? this.text.slice(from, to) : '';
    // The tables of tags below go by the check's memo of the tag where it keeps one: the same object for the same
    // text (an object's hash is stored in it; a string's is computed from its characters, each time for a new slice).
    const key = tag.memo ?? rawAttrs;
    let list: [string, string][] | undefined;
    let scope = parent.scope;
    // Declarations that change nothing (exports repeat the root's on every epd:amount) leave the scope as it is.
    if (tag.xmlns === 2) {
      // Each distinct tag is worked out once per scope.
      const known = tableOf(memo.scopes, parent.scope);
      let s = known.get(key);
      if (s === undefined)
        known.set(key, (s = declare(parent.scope, (list = attributesOf(rawAttrs)), this.value, memo, this.bound) ?? null));
      if (!s) return this.fail();
      scope = s;
    }
    // Sibling positions; a run of same-named siblings (epd:amount) counts without a map.
    let pos: number;
    if (qname === parent.run) pos = ++parent.runCount;
    else {
      if (parent.run !== undefined) (parent.counts ??= new Map<string, number>()).set(parent.run, parent.runCount);
      pos = (parent.counts?.get(qname) ?? 0) + 1;
      parent.run = qname;
      parent.runCount = pos;
    }
    const frame = newFrame(qname, scope, parent, pos);
    // Roles: children of the root and of elements with a role (the LCIA results' epd:amount sit 4 deep).
    let role: Role | undefined;
    if (parent === this.root || parent.role !== undefined) {
      const name = nameOf(frame);
      if (!name) return this.fail();
      role = frame.role = roleOf(parent.role, name[0], name[1]);
    }
    if (role === 'exchanges' && !this.exchangesTag && !empty) this.exchangesTag = { qname, start: this.slice(lt, end) };
    let attrs: Record<string, string> | null | undefined;
    if (role === 'exchange' || role === 'amount' || hasRef) {
      if (role === 'amount') {
        // Exports write a few dozen distinct epd:amount tags, each many times: read once per scope.
        const known = tableOf(memo.amounts, scope);
        attrs = known.get(key);
        if (attrs === undefined) known.set(key, (attrs = readAttrs(list ?? attributesOf(rawAttrs), scope, this.value) ?? null));
      } else attrs = readAttrs(list ?? attributesOf(rawAttrs), scope, this.value);
      if (!attrs) return this.fail();
      if (attrs['refObjectId'] !== undefined && attrs['type'] !== undefined) {
        // Short descriptions are kept only on references to sources; those are read by a full parse.
        if (SOURCE_TYPE.test(attrs['type'])) return this.fail();
        this.refs.push({ at: frame, attrs });
      }
      if (role === 'exchange') {
        const id = attrs['dataSetInternalID']?.trim();
        if (id !== undefined && !this.exchanges.has(id)) {
          if (empty) this.exchanges.set(id, [lt, end]);
          else this.openExchange = { id, at: lt };
        }
      }
      if (role === 'amount') this.body.amountModules.push(attrs[EPD_MODULE]?.trim());
    }
    const lc = this.lc;
    if (role === 'results' && !this.lcia) {
      this.lcia = empty ? { at: lt, end } : { frame, at: lt };
      if (lc) {
        lc.plainDeclarations(from, to);
        if (!empty) frame.lcia = 'lcia';
      }
    } else if (lc && (parent.lcia !== undefined || lc.inText())) lc.start(frame, parent.lcia, tag, rawAttrs, attrs ?? undefined, key);
    if (role === 'result') this.body.lciaResults++;
    if (!empty) this.stack.push(frame);
  }

  close(lt: number, qname: string, end: number): void {
    if (this.state !== 2 && !this.enter(lt, false)) return;
    const stack = this.stack;
    const top = stack.pop()!;
    if (this.lc && top.lcia) this.lc.end(top, stack[stack.length - 1]!, lt);
    if (this.lcia && this.lcia.frame === top) this.lcia = { at: this.lcia.at, end };
    if (qname !== top.qname) return this.fail();
    if (stack.length === 0) {
      if (lt !== this.endAt) return this.fail(); // a `</root` after the root's end tag, in a comment
      this.state = 3;
      return;
    }
    if (this.openExchange && stack.length === 2) {
      this.exchanges.set(this.openExchange.id, [this.openExchange.at, end]);
      this.openExchange = undefined;
    }
  }

  markup(lt: number): void {
    if (this.state !== 2 && !this.enter(lt, false)) return;
    this.lc?.markup();
  }

  /** Whether a token at `lt`, outside the body so far, is the body's first (it must be a start tag). */
  private enter(lt: number, open: boolean): boolean {
    if (this.state !== 1 || lt < this.bodyAt) return false;
    if (lt !== this.bodyAt || !open) {
      // The body's start was found in a comment, CDATA or a PI: left to a full parse.
      this.fail();
      return false;
    }
    this.state = 2;
    return true;
  }

  private openRoot(lt: number, qname: string, from: number, to: number, end: number, empty: boolean): void {
    if (empty || !plainName(qname)) return this.fail();
    const text = this.text;
    const rootAttrs = text.slice(from, to);
    const rootScope = declare(new Map([['xml', XML_NS]]), attributesOf(rootAttrs), this.value, this.memo);
    if (!rootScope) return this.fail();
    const rootNs = rootScope.get(prefixOf(qname)) ?? '';
    if (rootNs !== NS.process || localOf(qname) !== 'processDataSet') return this.fail();
    BODY_START.lastIndex = end;
    const bm = BODY_START.exec(text);
    if (!bm) return this.fail();
    this.bodyAt = bm.index;
    this.endAt = text.lastIndexOf(`</${qname}`);
    if (this.endAt < this.bodyAt) return this.fail();
    this.rootQName = qname;
    this.rootAt = lt;
    this.rootEnd = end;
    this.rootStart = this.slice(lt, end);
    this.root = newFrame(qname, rootScope, undefined, 1);
    this.stack.push(this.root);
    this.bound = new Map(rootScope);
    if (this.collectLcia) this.lc = new LciaCollector(text, typeof this.src === 'string' ? (v: string) => v : fromLatin1, rootAttrs);
    this.state = 1;
  }

  private fail(): void {
    this.state = -1;
  }

  /** The split document, once the well-formedness check has passed every token; undefined if this cannot read it. */
  result(): SplitDocument | undefined {
    if (this.state !== 3) return undefined;
    const bodyRefs: Ref[] = [];
    for (const r of this.refs) {
      const ref = toRef(r.at, r.attrs);
      if (!ref) return undefined;
      bodyRefs.push(ref);
    }
    const { slice, bodyAt, rootAt, rootEnd, rootQName, rootStart, exchanges, exchangesTag, lcia } = this;
    // No LCIAResults: no results, as scanLcia reads the root alone.
    const lciaResults = this.lc?.results();
    return {
      head: `${slice(0, bodyAt)}</${rootQName}>`,
      refs: bodyRefs,
      body: this.body,
      ...(lciaResults ? { lciaResults } : {}),
      lciaDocument() {
        return lciaDocumentAt(slice, this.lciaSpan());
      },
      lciaSpan() {
        // The body starts at a start tag the check told (enter): never inside a comment, CDATA or a PI.
        return lcia?.end === undefined ? [rootAt, rootEnd, 0, 0] : [rootAt, rootEnd, lcia.at, lcia.end];
      },
      exchangesDocument(ids) {
        const spans = ids.flatMap((id) => (exchanges.has(id) ? [exchanges.get(id)!] : []));
        if (!exchangesTag || !spans.length) return undefined;
        return `${rootStart}${exchangesTag.start}${spans.map(([a, b]) => slice(a, b)).join('')}</${exchangesTag.qname}></${rootQName}>`;
      },
    };
  }
}

/**
 * A name the scan reads: [A-Za-z_][\w.-]* with at most one `:`, followed by a name start (a name the check passed is
 * made of XML name characters already).
 */
function plainName(q: string): boolean {
  let colon = -1;
  for (let k = 0; k < q.length; k++) {
    const c = q.charCodeAt(k);
    if (c >= 0x80) return false;
    if (c === 0x3a) {
      if (colon >= 0 || k === 0) return false;
      colon = k;
    }
  }
  const s = q.charCodeAt(colon + 1);
  return (s >= 0x61 && s <= 0x7a) || (s >= 0x41 && s <= 0x5a) || s === 0x5f;
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
 * Parse the head and the reference exchange only; undefined when the document needs a full parse (or is not
 * well-formed).
 */
export function readIndexOnly(src: string | ByteView, collectLcia = false): IndexOnlyRead | undefined {
  const split = splitProcess(src, collectLcia);
  return split && indexOnlyOf(split);
}

/** readIndexOnly of a document split already (ProcessScan, after the well-formedness check passed it). */
export function indexOnlyOf(split: SplitDocument): IndexOnlyRead | undefined {
  const checked = true;
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
  private readonly plain = new Map<string | object, boolean>();

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

  plainDeclarations(from: number, to: number): void {
    if (!this.plainAttrs(this.text.slice(from, to))) this.declined = true;
  }

  /**
   * A start tag inside the element; `raw` its attributes as written when the body scan cut them out ('' when not),
   * `attrs` when the body scan read them (values with their references decoded, not trimmed).
   */
  start(
    frame: Frame,
    pr: LciaRole | undefined,
    tag: OpenTag,
    raw: string,
    attrs: Record<string, string> | undefined,
    key: string | object = raw,
  ): void {
    if (this.declined) return;
    // A declaration that changes nothing repeats one in force, which was plain (the root's, or one read here).
    if (this.textFrom >= 0 || (tag.xmlns === 2 && !this.plainAttrs(raw, key))) {
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
    if (raw === '' && tag.count > 0) raw = this.text.slice(tag.from, tag.to);
    // The body scan's values are the ones read here, but for a CR (normalised here first).
    if (attrs && raw.includes('\r')) attrs = undefined;
    if (role === 'result') {
      this.result = { names: [], units: [], amounts: [], seen: 0 };
      this.out.push(this.result);
    } else if (role === 'method') {
      const method = (attrs ? attrs['refObjectId'] : this.attr(raw, frame.scope, 'refObjectId'))?.trim().toLowerCase();
      if (method) r!.method = method;
    } else if (role === 'description') {
      const l = this.attr(raw, frame.scope, LANG);
      frame.lang = l ? l.toLowerCase() : 'en';
    } else if (role === 'amount') {
      const module = (attrs ? attrs[LCIA_MODULE] : this.attr(raw, frame.scope, LCIA_MODULE))?.trim();
      const scenario = (attrs ? attrs[LCIA_SCENARIO] : this.attr(raw, frame.scope, LCIA_SCENARIO))?.trim();
      const amount = scenario ? { module: module ?? '', scenario, value: '' } : { module: module ?? '', value: '' };
      if (tag.empty) {
        if (amount.module) r!.amounts.push(amount);
      } else frame.amount = amount;
    }
    if ((role === 'description' || role === 'amount') && !tag.empty) this.textFrom = tag.end;
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
  private plainAttrs(raw: string, key: string | object = raw): boolean {
    if (!raw.includes('xmlns')) return true;
    let ok = this.plain.get(key);
    if (ok === undefined) {
      ok = this.list(raw).every(([n, v]) => !isXmlns(n) || (v === v.trim() && !v.includes('&') && !v.includes('\r')));
      this.plain.set(key, ok);
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

/** How many children named `qname` `f` has (so far). */
const siblings = (f: Frame, qname: string): number => (qname === f.run ? f.runCount : (f.counts?.get(qname) ?? 0));

/** The reference with the XPath collectRefs (extract.ts) gives it: canonical prefixes, positions among same-named siblings. */
function toRef(at: Frame, attrs: Record<string, string>): Ref | undefined {
  let xpath = '';
  for (let f: Frame = at; f.up; f = f.up) {
    const name = nameOf(f);
    if (!name) return undefined;
    xpath = `/${PREFIX[name[0]] ?? ''}${name[1]}${siblings(f.up, f.qname) > 1 ? `[${f.pos}]` : ''}${xpath}`;
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
    // No test for a repeat: the check refused any tag with two attributes of one expanded name (Namespaces §6.3).
    out[p ? `{${uri}}${localOf(name)}` : name] = value(raw);
  }
  return out;
}

/**
 * `type.trim().toLowerCase() === 'source data set'` without the two strings it made per reference: `\s` is the white
 * space `trim` removes, and `i` folds only ASCII letters onto these ASCII ones, as toLowerCase does.
 */
const SOURCE_TYPE = /^\s*source data set\s*$/i;

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

/** Whether a tag's name is one the scan reads and whether it has a `refObjectId`: kept in the check's memo of the tag. */
interface TagFacts {
  plain: boolean;
  hasRef: boolean;
}

/** One document's memo tables (src/util/memo.ts). */
interface BodyMemo {
  /** Scopes by parent scope and attributes as written, or the check's memo of the tag (null: not readable). */
  scopes: Map<Map<string, string>, Map<string | object, Map<string, string> | null>>;
  /** Attributes of epd:amount tags by scope and attributes as written or memo (null: not readable); shared, never changed. */
  amounts: Map<Map<string, string>, Map<string | object, Record<string, string> | null>>;
  /** Derived scopes by parent scope and declaration. */
  derived: Map<Map<string, string>, Map<string, Map<string, string>>>;
}
const EPD_MODULE = `{${NS.epd}}module`;

function prefixOf(q: string): string {
  const i = q.indexOf(':');
  return i < 0 ? '' : q.slice(0, i);
}

function localOf(q: string): string {
  const i = q.indexOf(':');
  return i < 0 ? q : q.slice(i + 1);
}
