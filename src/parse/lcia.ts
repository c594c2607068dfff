import { splitProcess } from './body.js';
import { NS } from './ilcd.js';
import { decodeXml, viewXml } from './safety.js';
import { texts, type LangText } from './ref.js';
import { attr, child, childrenOf, parseXml, type XNode } from './xml.js';

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
 * `LCIAResults` element is parsed, cut out by the body scanner (src/parse/body.ts); a document the scanner does not
 * read is parsed whole. A document that does not parse has no results to show.
 */
export function readLciaResults(bytes: Uint8Array): LciaResult[] {
  // Scanned as bytes: only the LCIAResults element is decoded.
  const src = viewXml(bytes) ?? decodeXml(bytes);
  if ('ok' in src && !src.ok) return [];
  const view = 'ok' in src ? src.text : src;
  const doc = splitProcess(view)?.lciaDocument() ?? (typeof view === 'string' ? view : view.decode());
  const parsed = parseXml(doc, { checked: true });
  return parsed.ok ? extractLciaResults(parsed.root) : [];
}
