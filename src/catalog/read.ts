import { createHash } from 'node:crypto';
import type { Finding, Severity } from '../findings.js';
import { extractDataset, type DatasetHeader } from '../parse/extract.js';
import { decodeXml, LazyText, viewXml, type ByteView } from '../parse/safety.js';
import { indexOnlyOf, ProcessScan, type LciaSpan } from '../parse/body.js';
import { lciaResultsAt } from '../parse/lcia.js';
import { lciaTable } from '../html/lcia-table.js';
import { parseChecked, position, type ParseResult } from '../parse/xml.js';
import { checkWellFormed, DEFAULT_SHAPE_LIMITS, type ShapeLimits, type WellFormed } from '../parse/wellformed.js';
import { finding } from '../messages/finding.js';
import { findingAt, type InputFile } from '../read/inputs.js';
import { readFileReused, readInput, ZipEntryError } from '../read/zip.js';
import { validateDocument } from '../validate/run.js';
import { schemaFor, validateXsd, xsdSeverity, type XsdItem } from '../validate/xsd.js';

/** What reading one input produced; the same shape the incremental-build cache keeps. Accepted when header and sha256 are set. */
export interface ReadOutcome {
  findings: Finding[];
  header?: DatasetHeader;
  sha256?: string;
  /** sha256 of the bytes read, accepted or not: how a fresh checkout (new mtimes) is recognised. */
  digest?: string;
  skipped?: boolean;
  /** Accepted EPDs read by the byte scanner: where their page finds the LCIA results again (byte offsets, LciaSpan). */
  lcia?: LciaSpan;
  /**
   * With ReadOptions.pages, accepted EPDs read by the byte scanner: their page's LCIA results table (lciaTable), made
   * from the bytes in hand. Never cached: the catalog moves it into its spool as the outcome arrives.
   */
  table?: string;
}

/** Plain data only: it crosses into worker threads (src/catalog/pool.ts). */
export interface ReadOptions {
  maxFileSize: number;
  /** Per-document limits on shape (attributes, depth, nodes); DEFAULT_SHAPE_LIMITS when absent. */
  shape?: ShapeLimits;
  /** Levels 2-4; all on when absent. */
  validation?: { structure?: boolean; xsd: boolean; rules: boolean; disabledRules: readonly string[] };
  /** Build time, for date rules (valid-until). */
  now?: Date;
  /** Documents per XSD batch (xmllint call). */
  xsdBatchSize?: number;
  /** Base time limit of an XSD batch, seconds (validateXsd). */
  xsdTimeoutSeconds?: number;
  /** Render each accepted EPD's LCIA results table for its page (ReadOutcome.table): builds, not `validate`. */
  pages?: boolean;
}

export interface ReadResult {
  outcome: ReadOutcome;
  /**
   * Decoded text and header of a parsed dataset (accepted or rejected by checks), for XSD validation. The text is
   * decoded when first read (a getter): a build that validates plain files by path never decodes them.
   */
  text?: string;
  header?: DatasetHeader;
}

/** A chunk's outcomes; `xsd[i]` set where the caller merges the early XSD run's findings (with that severity). */
export interface ChunkResult {
  outcomes: ReadOutcome[];
  xsd: (Severity | undefined)[];
}

/** The outcome of file `j` of a chunk, complete; `xsd` as in ChunkResult. */
export type OutcomeSink = (j: number, outcome: ReadOutcome, xsd: Severity | undefined) => void;

/**
 * Levels 1-4 on a chunk of files: each is read, parsed and validated, then the chunk goes through the XSD
 * validator in batches (schemas compiled once per batch). Bad files become findings, never exceptions.
 * `early[i]` names the schema an XSD run over the file's path already started with (src/catalog/pool.ts): where
 * the dataset turns out to need that schema, its XSD is left to that run; the rest are validated here.
 * With `emit`, each outcome goes there as soon as it is complete (those validated here at the end) and the result
 * is empty: a worker posts them as they come instead of keeping a chunk of them alive to its end.
 */
export async function readChunk(
  files: readonly InputFile[],
  opts: ReadOptions,
  early: readonly (string | undefined)[] = [],
  emit?: OutcomeSink,
): Promise<ChunkResult> {
  const xsdOn = opts.validation?.xsd ?? true;
  const outcomes: ReadOutcome[] = [];
  const xsd: (Severity | undefined)[] = [];
  const done: OutcomeSink =
    emit ??
    ((j, o, severity) => {
      outcomes[j] = o;
      xsd[j] = severity;
    });
  // Only the texts of the results whose XSD runs here are kept: the text getter holds the document's bytes and view,
  // and a chunk of 200 of them kept alive until its end was what every young-generation GC of the worker copied.
  const own: { i: number; outcome: ReadOutcome; text: string; header: DatasetHeader }[] = [];
  for (const [i, f] of files.entries()) {
    // A plain file is read into the worker's reusable buffer and handled with no `await` until its text is taken
    // (or not): nothing else can read into that buffer meanwhile, and nothing kept refers to it afterwards.
    const r = f.zip ? await readOne(f, opts) : readOneNow(f, opts);
    // A dataset already rejected by level 2/4 still goes through the XSD, so its report is complete.
    // `in`, not a read: the text is a getter that decodes, and files xmllint validates by path never need it.
    if (!xsdOn || !('text' in r) || !r.header) done(i, r.outcome, undefined);
    else if (early[i] === undefined || early[i] !== schemaFor(r.header)) {
      own.push({ i, outcome: r.outcome, text: r.text!, header: r.header });
    } else done(i, r.outcome, xsdSeverity(r.header));
  }
  if (!own.length) return { outcomes, xsd };
  const items: XsdItem[] = own.map(({ i, text, header }) => ({
    file: files[i]!.path,
    ...(files[i]!.zip ? {} : { abs: files[i]!.abs }),
    text,
    header,
  }));
  const timeout = opts.xsdTimeoutSeconds ? { timeoutSeconds: opts.xsdTimeoutSeconds } : {};
  const found = await validateXsd(items, { batchSize: opts.xsdBatchSize ?? 200, ...timeout });
  own.forEach(({ i, outcome }, k) => {
    addXsdFindings(outcome, found.get(k) ?? [], files[i]!);
    done(i, outcome, undefined);
  });
  return { outcomes, xsd };
}

/** XSD findings join the file's outcome after its own; an XSD error rejects it. */
export function addXsdFindings(o: ReadOutcome, found: readonly Finding[], file: InputFile): void {
  if (!found.length) return;
  const fs = found.map((f) => ({ ...f, ...findingAt(file) }));
  o.findings.push(...fs);
  if (fs.some((f) => f.severity === 'error')) {
    delete o.header;
    delete o.sha256;
    delete o.lcia;
    delete o.table;
  }
}

async function readOne(file: InputFile, opts: ReadOptions): Promise<ReadResult> {
  const early = tooLarge(file, opts);
  if (early) return early;
  let bytes: Buffer;
  try {
    // ZIP entries inflate with a running cap: one over the size limit stops there, whatever it declares.
    bytes = await readInput(file, opts.maxFileSize);
  } catch (e) {
    return unreadable(file, opts, e);
  }
  return readBytes(bytes, file, opts);
}

/**
 * readOne for a plain file, synchronously, through the thread's reused read buffer (readFileReused). The result keeps
 * no reference to the buffer but its text getter, so the text must be taken before the next read (readChunk takes it
 * at once or never).
 */
function readOneNow(file: InputFile, opts: ReadOptions): ReadResult {
  const early = tooLarge(file, opts);
  if (early) return early;
  let bytes: Buffer;
  try {
    bytes = readFileReused(file.abs);
  } catch (e) {
    return unreadable(file, opts, e);
  }
  return readBytes(bytes, file, opts);
}

function tooLarge(file: InputFile, opts: ReadOptions): ReadResult | undefined {
  if (file.size <= opts.maxFileSize) return undefined;
  return rejected(file, finding('input-too-large', { case: 'unread', bytes: file.size, limit: opts.maxFileSize }));
}

function unreadable(file: InputFile, opts: ReadOptions, e: unknown): ReadResult {
  let f: Omit<Finding, 'file'>;
  if (e instanceof ZipEntryError) {
    f =
      e.ruleId === 'input-too-large'
        ? finding('input-too-large', { case: 'entry', detail: e.message, limit: opts.maxFileSize })
        : finding('zip-entry-corrupt', { detail: e.message });
  } else {
    f = finding('input-unreadable', { case: 'file', code: (e as NodeJS.ErrnoException).code ?? 'error' });
  }
  return rejected(file, f);
}

function readBytes(bytes: Buffer, file: InputFile, opts: ReadOptions): ReadResult {
  if (bytes.length > opts.maxFileSize) {
    return rejected(file, finding('input-too-large', { case: 'read', bytes: bytes.length, limit: opts.maxFileSize }));
  }
  return readDocument(bytes, file, opts);
}

/** An input rejected before its bytes were read as XML (no digest: nothing was hashed). */
const rejected = (file: InputFile, f: Omit<Finding, 'file'>): ReadResult => ({ outcome: { findings: [{ ...findingAt(file), ...f }] } });

/**
 * Levels 1, 2 and 4 on the bytes of one document: decode safely, parse, identify, validate. The one path every
 * document takes, whether an input file of build/validate or an EPD the `check` crawler fetched
 * (src/check/validate-epd.ts).
 * Level 3 (XSD) runs on batches of the results. Findings name `file` (path, and entry inside a ZIP).
 */
export function readDocument(
  bytes: Uint8Array,
  file: Pick<InputFile, 'path' | 'entry'>,
  opts: Omit<ReadOptions, 'maxFileSize' | 'xsdBatchSize'>,
): ReadResult {
  const at = (f: Omit<Finding, 'file'>): Finding => ({ ...findingAt(file), ...f });
  // Every outcome of bytes read carries their hash: the cache recognises the file by it on another machine.
  const digest = createHash('sha256').update(bytes).digest('hex');
  const outcome = (o: Omit<ReadOutcome, 'digest'>): ReadOutcome => ({ ...o, digest });
  const reject = (findings: Finding[]): ReadResult => ({ outcome: outcome({ findings }) });
  const limits = opts.shape ?? DEFAULT_SHAPE_LIMITS;
  // Every document is checked whole, whatever the level: only well-formed XML is published. The check runs on the
  // bytes (viewXml) and decodes nothing; a document it cannot pass there is decoded and checked again, and that
  // verdict is the one reported (the two agree on every document the view passes).
  // Process datasets are read index-only (head parsed, body scanned) unless level 2 must check the whole
  // document itself (docs/performance.md). The body scan is told the check's tokens: one tokenisation for both.
  // With pages, the body scan also collects the LCIA results for the page's table (or leaves them to scanLcia).
  const v = opts.validation;
  const indexOnly = (v?.xsd ?? true) || !(v?.structure ?? true);
  const pages = opts.pages ?? false;
  let src: string | ByteView | undefined = viewXml(bytes);
  let scan = src && indexOnly ? new ProcessScan(src, pages) : undefined;
  if (src && !checkWellFormed(src.text, limits, true, scan).ok) src = undefined;
  if (!src) {
    const decoded = decodeXml(bytes);
    if (!decoded.ok) return reject([at(decoded.finding)]);
    scan = indexOnly ? new ProcessScan(decoded.text, pages) : undefined;
    const wf = checkWellFormed(decoded.text, limits, false, scan);
    if (!wf.ok) return reject([at(wellFormedFinding(wf, decoded.text))]);
    src = decoded.text;
  }
  // The decoded text, made when something asks for it (a finding's position, a full parse, the XSD of a ZIP entry).
  let text = typeof src === 'string' ? src : undefined;
  const view = src;
  const textOf = () => (text ??= typeof view === 'string' ? view : view.decode());
  const split = scan?.result();
  const quick = split && indexOnlyOf(split);
  const parsed: ParseResult = quick ? { ok: true, root: quick.root } : parseChecked(view);
  if (!parsed.ok) {
    const where = { ...(parsed.line ? { line: parsed.line } : {}), ...(parsed.col ? { col: parsed.col } : {}) };
    return reject([at({ ...finding('xml-malformed', { case: 'parser', detail: parsed.message }), ...where })]);
  }
  const extracted = extractDataset(parsed.root);
  if (!extracted.ok) {
    // Category systems and other ILCD side files are not datasets: note them, do not reject.
    if (extracted.findings[0]?.ruleId === 'ilcd-root' && parsed.root.name === 'CategorySystem') {
      const note = at(finding('input-not-dataset', {}));
      return { outcome: outcome({ skipped: true, findings: [note] }) };
    }
    return reject(extracted.findings.map(at));
  }
  const header = extracted.dataset;
  if (quick) header.references = quick.references(header.references);
  // The index is copied into every list, page and report: one 10 MB name or attribute cost 800 MB RSS on the way.
  // Its JSON is measured only when a bound of its size passes the limit (the JSON of every index cost 0.1 ms per EPD).
  const maxIndex = opts.shape?.maxIndexKB ?? DEFAULT_SHAPE_LIMITS.maxIndexKB;
  const indexSize = jsonLengthBound(header, maxIndex * 1024) ?? JSON.stringify(header).length;
  if (indexSize > maxIndex * 1024) {
    return reject([at(finding('index-too-large', { bytes: indexSize, limitKB: maxIndex }))]);
  }
  // Checks see the entry name (file-name rules), findings get archive + entry.
  const findings = validateDocument(
    Object.assign(new LazyText(textOf), {
      file: file.entry ?? file.path,
      ...(typeof view === 'string' ? {} : { view }),
      root: parsed.root,
      dataset: header,
      ...(quick ? { body: quick.body } : {}),
    }),
    { rules: v?.rules ?? true, disabledRules: v?.disabledRules ?? [], ...(opts.now ? { now: opts.now } : {}) },
  ).map((f) => ({ ...f, ...findingAt(file) }));
  const ok = !findings.some((f) => f.severity === 'error');
  // Byte offsets (of a view, not of decoded text), shifted past a BOM: the page reads the file's bytes.
  const span = typeof view === 'string' ? undefined : quick?.lcia;
  const bom = bytes.length - (typeof view === 'string' ? bytes.length : view.bytes.length);
  const lcia: { lcia?: LciaSpan; table?: string } = span ? { lcia: [span[0] + bom, span[1] + bom, span[2] + bom, span[3] + bom] } : {};
  // The page's table while the bytes are here: the page would read, hash and cut out the same bytes again on the
  // main thread, after the read (docs/performance.md, "LCIA tables made by the reader").
  if (ok && opts.pages && lcia.lcia && header.process?.typeOfDataSet === 'EPD') {
    const results = quick?.lciaResults ?? lciaResultsAt(bytes, lcia.lcia);
    if (results) lcia.table = lciaTable(results);
  }
  return Object.assign(new LazyText(textOf), {
    outcome: outcome(ok ? { findings, header, sha256: digest, ...lcia } : { findings }),
    header,
  });
}

function wellFormedFinding(wf: Extract<WellFormed, { ok: false }>, text: string): Omit<Finding, 'file'> {
  const f = wf.ruleId === 'xml-doctype' ? finding('xml-doctype', {}) : finding(wf.ruleId, { detail: wf.message });
  return { ...f, ...position(text, wf.offset) };
}

/**
 * An upper bound of `JSON.stringify(value).length` for plain data (strings, numbers, booleans, null, arrays, objects),
 * or undefined once it passes `limit` (or meets a `toJSON`). A string counts 6 per UTF-16 unit (`\u001f`, the longest
 * escape).
 */
export function jsonLengthBound(value: unknown, limit: number): number | undefined {
  let n = 0;
  const walk = (v: unknown): boolean => {
    if (typeof v === 'string') n += 2 + 6 * v.length;
    else if (typeof v === 'number') n += 24;
    else if (v === null || typeof v !== 'object') n += 5;
    else if (Array.isArray(v)) {
      n += 2 + v.length;
      for (const x of v) if (!walk(x)) return false;
    } else {
      // Anything but a plain object (a Date) or one with its own toJSON is measured exactly. Told by the prototype
      // and the keys: a read of `toJSON` on objects of many shapes was most of this walk's time.
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) return false;
      n += 2;
      for (const k in v) {
        if (k === 'toJSON') return false;
        n += 4 + 6 * k.length;
        if (!walk((v as Record<string, unknown>)[k])) return false;
      }
    }
    return n <= limit;
  };
  return walk(value) ? n : undefined;
}
