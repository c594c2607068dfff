import { splitProcess } from './body.js';
import { NS } from './ilcd.js';
import { decodeXml, viewXml } from './safety.js';
import { texts, type LangText } from './ref.js';
import { newToken, readToken, attributesOf } from './tokens.js';
import { attr, child, childrenOf, decodeEntities, parseXml, XML_NS, type XNode } from './xml.js';

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
 * The LCIA results of an accepted process document (its well-formedness was checked when it was read). Only the
 * `LCIAResults` element is read, cut out by the body scanner (src/parse/body.ts) and scanned here (scanLcia); a
 * document the scanners do not read is parsed whole. A document that does not parse has no results to show.
 */
export function readLciaResults(bytes: Uint8Array): LciaResult[] {
  // Scanned as bytes: only the LCIAResults element is decoded.
  const src = viewXml(bytes) ?? decodeXml(bytes);
  if ('ok' in src && !src.ok) return [];
  const view = 'ok' in src ? src.text : src;
  const lcia = splitProcess(view)?.lciaDocument();
  const quick = lcia === undefined ? undefined : scanLcia(lcia);
  if (quick) return quick;
  const parsed = parseXml(lcia ?? (typeof view === 'string' ? view : view.decode()), { checked: true });
  return parsed.ok ? extractLciaResults(parsed.root) : [];
}

/** An open element of scanLcia: its namespace scope and what it is to the results. */
interface Open {
  qname: string;
  scope: Map<string, string>;
  role: 'lcia' | 'result' | 'method' | 'other' | 'unit' | 'description' | 'amount' | undefined;
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
  const out: LciaResult[] = [];
  let result: (LciaResult & { seen: Set<string> }) | undefined;
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
        const lang = (top as Open & { lang?: string }).lang;
        const parent = stack[stack.length - 1]!;
        if (top!.role === 'amount') (top as Open & { amount: LciaResult['amounts'][number] }).amount.value = value;
        else if (value !== '') (parent.role === 'method' ? result!.names : result!.units).push({ lang: lang ?? 'en', value });
      }
      if (top!.role === 'amount') {
        const a = (top as Open & { amount: LciaResult['amounts'][number] }).amount;
        if (a.module) result!.amounts.push(a);
      }
    } else {
      const list = t.attrsTo > t.attrsFrom ? attributesOf(text.slice(t.attrsFrom, t.attrsTo)) : [];
      let scope = top?.scope ?? ROOT_SCOPE;
      for (const [n, v] of list) {
        if (n !== 'xmlns' && !n.startsWith('xmlns:')) continue;
        if (scope === (top?.scope ?? ROOT_SCOPE)) scope = new Map(scope);
        scope.set(n === 'xmlns' ? '' : n.slice(6), decodeEntities(v.trim()));
      }
      const colon = t.qname.indexOf(':');
      const ns = scope.get(colon < 0 ? '' : t.qname.slice(0, colon)) ?? '';
      const local = colon < 0 ? t.qname : t.qname.slice(colon + 1);
      const is = (n: string, l: string) => ns === n && local === l;
      const first = (key: string) => !result!.seen.has(key) && !!result!.seen.add(key);
      const pr = top?.role;
      let role: Open['role'];
      // The document holds one LCIAResults, the root's only child (SplitDocument.lciaDocument).
      if (stack.length === 1 && is(P, 'LCIAResults')) role = 'lcia';
      else if (pr === 'lcia' && is(P, 'LCIAResult')) role = 'result';
      else if (pr === 'result' && is(P, 'referenceToLCIAMethodDataSet') && first('method')) role = 'method';
      else if (pr === 'result' && is(NS.common, 'other') && first('other')) role = 'other';
      else if (pr === 'other' && is(NS.epd, 'referenceToUnitGroupDataSet') && first('unit')) role = 'unit';
      else if (pr === 'other' && is(NS.epd, 'amount')) role = 'amount';
      else if ((pr === 'method' || pr === 'unit') && is(NS.common, 'shortDescription')) role = 'description';
      else if (textFrom >= 0) return undefined; // an element inside a text read
      if (role === 'description' || role === 'amount') {
        if (textFrom >= 0) return undefined;
        if (!t.empty) textFrom = t.end;
      }
      const attr = (key: string) => {
        for (const [n, v] of list) {
          const c = n.indexOf(':');
          const k = c < 0 ? n : `{${scope.get(n.slice(0, c))}}${n.slice(c + 1)}`;
          if (k === key) return decodeEntities(v.trim());
        }
        return undefined;
      };
      const open: Open & { lang?: string; amount?: LciaResult['amounts'][number] } = { qname: t.qname, scope, role };
      if (role === 'result') {
        result = { names: [], units: [], amounts: [], seen: new Set() };
        out.push(result);
      } else if (role === 'method') {
        const method = attr('refObjectId')?.trim().toLowerCase();
        if (method) result!.method = method;
      } else if (role === 'description') {
        const l = attr(`{${XML_NS}}lang`);
        open.lang = l ? l.toLowerCase() : 'en';
      } else if (role === 'amount') {
        const module = attr(`{${NS.epd}}module`)?.trim();
        const scenario = attr(`{${NS.epd}}scenario`)?.trim();
        open.amount = { module: module ?? '', ...(scenario ? { scenario } : {}), value: '' };
      }
      if (t.empty) {
        if (role === 'amount' && open.amount!.module) result!.amounts.push(open.amount!);
      } else stack.push(open);
    }
    i = text.indexOf('<', t.end);
  }
  // Key order as extractLciaResults builds them.
  return out.map((r) => ({ ...(r.method ? { method: r.method } : {}), names: r.names, units: r.units, amounts: r.amounts }));
}

const ROOT_SCOPE = new Map([['xml', XML_NS]]);
