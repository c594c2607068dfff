import type { Finding } from '../findings.js';
import { extractDataset, type DatasetHeader } from '../parse/extract.js';
import { decodeXml } from '../parse/safety.js';
import { parseXml } from '../parse/xml.js';
import { checkDocument } from '../validate/run.js';

export interface EpdValidation {
  /** Set when the document could be read far enough to know its identity. */
  dataset?: DatasetHeader;
  findings: Finding[];
}

/**
 * Validate one fetched EPD with the same checks `build` runs on an input file. The single entry point
 * `check` uses: when the full validation (XSD, ECO rules) lands, switch this body to it. Async already,
 * because XSD validation (xmllint-wasm) is.
 */
export async function validateFetchedEpd(bytes: Uint8Array, file: string): Promise<EpdValidation> {
  const decoded = decodeXml(bytes);
  if (!decoded.ok) return { findings: [{ ...decoded.finding, file }] };
  const parsed = parseXml(decoded.text);
  if (!parsed.ok) {
    return {
      findings: [{ ruleId: 'xml-malformed', severity: 'error', file, ...(parsed.line ? { line: parsed.line } : {}), ...(parsed.col ? { col: parsed.col } : {}), message: `The XML is not well-formed: ${parsed.message}` }],
    };
  }
  const ex = extractDataset(parsed.root);
  if (!ex.ok) return { findings: ex.findings.map((f) => ({ ...f, file })) };
  return { dataset: ex.dataset, findings: checkDocument({ file, text: decoded.text, root: parsed.root, dataset: ex.dataset }) };
}
