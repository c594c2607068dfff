import { readDocument } from '../catalog/read.js';
import type { Finding } from '../findings.js';
import type { DatasetHeader } from '../parse/extract.js';
import { validateXsd, type XsdItem } from '../validate/xsd.js';

export interface EpdValidation {
  /** Set when the document could be read far enough to know its identity. */
  dataset?: DatasetHeader;
  findings: Finding[];
}

/**
 * Validate one fetched EPD as `build` and `validate` do an input file: the same single-document read
 * (src/catalog/read.ts readDocument: safety, structure, ECO rules), then the XSD. The single entry point `check` uses.
 */
export async function validateFetchedEpd(bytes: Uint8Array, file: string): Promise<EpdValidation> {
  const r = readDocument(bytes, { path: file }, {});
  const findings = r.outcome.findings;
  if (r.text === undefined || !r.header) return { findings };
  findings.push(...(await xsdBatcher.validate({ file, text: r.text, header: r.header })));
  return { dataset: r.header, findings };
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
