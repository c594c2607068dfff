import type { Finding } from '../findings.js';
import { extractDataset, type DatasetHeader } from '../parse/extract.js';
import { decodeXml } from '../parse/safety.js';
import { parseXml } from '../parse/xml.js';
import { checkDocument } from '../validate/run.js';
import { validateXsd, type XsdItem } from '../validate/xsd.js';

export interface EpdValidation {
  /** Set when the document could be read far enough to know its identity. */
  dataset?: DatasetHeader;
  findings: Finding[];
}

/**
 * Validate one fetched EPD with the same checks `build` runs on an input file: safety, structure, ECO rules
 * and XSD. The single entry point `check` uses.
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
  const findings = checkDocument({ file, text: decoded.text, root: parsed.root, dataset: ex.dataset });
  findings.push(...(await xsdBatcher.validate({ file, text: decoded.text, header: ex.dataset })));
  return { dataset: ex.dataset, findings };
}

/**
 * Collects concurrent XSD requests into one xmllint-wasm call: compiling the schemas costs far more than
 * validating one EPD, and `check` fetches several EPDs at once.
 */
class XsdBatcher {
  private queue: { item: XsdItem; done: (f: Finding[]) => void; fail: (e: unknown) => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly maxBatch: number,
    private readonly waitMs: number,
  ) {}

  validate(item: XsdItem): Promise<Finding[]> {
    return new Promise((done, fail) => {
      this.queue.push({ item, done, fail });
      if (this.queue.length >= this.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.waitMs);
    });
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.queue.splice(0);
    if (!batch.length) return;
    validateXsd(batch.map((b) => b.item)).then(
      (results) => batch.forEach((b, i) => b.done(results.get(i) ?? [])),
      (e) => batch.forEach((b) => b.fail(e)),
    );
  }
}

const xsdBatcher = new XsdBatcher(50, 25);
