import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { XMLFileInfo } from 'xmllint-wasm';
import type { Finding, Severity } from '../findings.js';
import { finding } from '../messages/finding.js';
import type { DatasetHeader } from '../parse/extract.js';
import { xpathAtLine } from '../parse/locate.js';
import { spawnChild } from '../util/spawner.js';

/**
 * Level 3: XSD validation with libxml2 (xmllint compiled to WebAssembly), fully offline.
 * The schemas ship in schemas/xsd/ (see its PROVENANCE.md); the W3C xml.xsd import points at a local copy.
 * Many documents go into one xmllint call, so each schema set is compiled once per batch, not per file.
 * When libxml2's own xmllint is installed it runs instead (same library and schemas, about 2.5x faster and
 * outside the JavaScript heap; docs/performance.md); PO_NODE_XSD=wasm forces the bundled build.
 */
export interface XsdItem {
  /** Display path of the input file, for findings. */
  file: string;
  /** The file on disk, when the document is one (native xmllint reads it there instead of a copy). */
  abs?: string;
  text: string;
  header: DatasetHeader;
}

/** Schema entry points, relative to schemas/xsd/. */
export const XSD_ENTRY = {
  epd: 'v1.2-libxml2/EPD_DataSet.xsd',
  ilcdProcess: 'ilcd-1.1-libxml2/ILCD_ProcessDataSet.xsd',
  flow: 'wrappers/EPD_FlowDataSet_v1.2-libxml2.xsd',
  flowproperty: 'v1.2-libxml2/ILCD_FlowPropertyDataSet.xsd',
  unitgroup: 'v1.2-libxml2/ILCD_UnitGroupDataSet.xsd',
  contact: 'v1.2-libxml2/ILCD_ContactDataSet.xsd',
  source: 'v1.2-libxml2/ILCD_SourceDataSet.xsd',
  lciamethod: 'v1.2-libxml2/ILCD_LCIAMethodDataSet.xsd',
} as const;

/** EPDs use the InData EPD profile; plain ILCD processes fail it by design, so they get the JRC ILCD 1.1 schema. */
export function schemaFor(h: DatasetHeader): string {
  if (h.type === 'process') return h.process?.typeOfDataSet === 'EPD' ? XSD_ENTRY.epd : XSD_ENTRY.ilcdProcess;
  return XSD_ENTRY[h.type];
}

/** Schema errors reject EPDs (what the portal lists); on dependencies and plain ILCD processes they are warnings, as real exports often carry small schema faults (VALIDATION.md finding 5). */
export function xsdSeverity(h: DatasetHeader): Severity {
  return h.type === 'process' && h.process?.typeOfDataSet === 'EPD' ? 'error' : 'warning';
}

export const XSD_ROOT = new URL('../../schemas/xsd/', import.meta.url);
const SETS = ['v1.2-libxml2', 'ilcd-1.1-libxml2', 'ext', 'wrappers'];
let schemaFiles: XMLFileInfo[] | undefined;

function loadSchemas(): XMLFileInfo[] {
  schemaFiles ??= SETS.flatMap((set) =>
    readdirSync(new URL(`${set}/`, XSD_ROOT))
      .filter((f) => f.endsWith('.xsd'))
      .sort()
      .map((f) => ({ fileName: `xsd/${set}/${f}`, contents: readFileSync(new URL(`${set}/${f}`, XSD_ROOT)) })),
  );
  return schemaFiles;
}

export interface XsdOptions {
  /** Documents per xmllint call (calibrated: 300 EPDs fit, 3,000 exhaust the wasm memory). */
  batchSize?: number;
  /** Also cap a batch by total characters, so a few large files do not exhaust the memory. */
  batchChars?: number;
  /** Which xmllint (default: xsdEngine()). */
  engine?: 'native' | 'wasm';
  /** Base time limit of a batch in seconds, plus 1 s per MB of the batch (default DEFAULT_XSD_TIMEOUT_SECONDS). */
  timeoutSeconds?: number;
}

/**
 * libxml2 is quadratic on some shapes (one element with a million attributes kept xmllint busy for minutes) while
 * the other documents wait. A batch over its time limit is stopped, split in halves and retried, until the file
 * that holds it up is alone; that file is rejected (xsd-timeout). Native xmllint only: the bundled wasm build
 * runs in a worker xmllint-wasm does not let us stop.
 */
export const DEFAULT_XSD_TIMEOUT_SECONDS = 60;

class XsdTimeout extends Error {}

/** Time limit of a batch holding `chars` characters, ms. */
export function batchTimeoutMs(chars: number, baseSeconds = DEFAULT_XSD_TIMEOUT_SECONDS): number {
  return Math.round((baseSeconds + chars / 1_048_576) * 1000);
}

/** Validate every item against its schema; returns findings per item index (absent = valid). */
export async function validateXsd(items: readonly XsdItem[], opts: XsdOptions = {}): Promise<Map<number, Finding[]>> {
  const out = new Map<number, Finding[]>();
  const bySchema = new Map<string, number[]>();
  items.forEach((it, i) => {
    const s = schemaFor(it.header);
    const g = bySchema.get(s);
    if (g) g.push(i);
    else bySchema.set(s, [i]);
  });
  const maxN = opts.batchSize ?? 200;
  const maxChars = opts.batchChars ?? 40_000_000;
  for (const [schema, idx] of bySchema) {
    let batch: number[] = [];
    let chars = 0;
    for (const i of idx) {
      if (batch.length && (batch.length >= maxN || chars + items[i]!.text.length > maxChars)) {
        await runBatch(schema, batch, items, out, opts);
        batch = [];
        chars = 0;
      }
      batch.push(i);
      chars += items[i]!.text.length;
    }
    if (batch.length) await runBatch(schema, batch, items, out, opts);
  }
  return out;
}

/** Which xmllint validates: the system's (`native`) when present, else the bundled WebAssembly build. */
export function xsdEngine(env: NodeJS.ProcessEnv = process.env): 'native' | 'wasm' {
  if (engine) return engine;
  if (env.PO_NODE_XSD === 'wasm') return (engine = 'wasm');
  const r = spawnSync('xmllint', ['--version'], { stdio: 'ignore', timeout: 10_000 });
  return (engine = r.status === 0 ? 'native' : 'wasm');
}
let engine: 'native' | 'wasm' | undefined;

async function runBatch(
  schema: string,
  batch: number[],
  items: readonly XsdItem[],
  out: Map<number, Finding[]>,
  opts: XsdOptions,
): Promise<void> {
  const use = opts.engine ?? xsdEngine();
  if (use === 'native') {
    const ms = batchTimeoutMs(
      batch.reduce((s, i) => s + items[i]!.text.length, 0),
      opts.timeoutSeconds,
    );
    const raw = await runNative(schema, batch, items, ms).catch((e: unknown) => e);
    if (typeof raw === 'string') return collect(raw, schema, batch, items, out);
    if (raw instanceof XsdTimeout) {
      if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        await runBatch(schema, batch.slice(0, half), items, out, opts);
        await runBatch(schema, batch.slice(half), items, out, opts);
        return;
      }
      const it = items[batch[0]!]!;
      out.set(batch[0]!, [finding('xsd-timeout', { seconds: Math.round(ms / 1000) }, { file: it.file })]);
      return;
    }
    // A failed run (xmllint vanished, killed) falls back to the bundled build.
  }
  const all = loadSchemas();
  const entry = all.find((f) => f.fileName === `xsd/${schema}`)!;
  // Input files get neutral names: user paths never reach the xmllint command line.
  const xml = batch.map((i, k) => ({ fileName: `in/${k}.xml`, contents: items[i]!.text }));
  const chars = xml.reduce((s, x) => s + x.contents.length, 0);
  let raw: string;
  try {
    // Loaded when first used: the system's xmllint is the usual engine, and config loading needs only the defaults.
    const { validateXML } = await import('xmllint-wasm');
    const r = await validateXML({
      xml,
      schema: [entry],
      preload: all.filter((f) => f !== entry),
      // 64 KiB pages: room for the compiled schemas plus the batch's trees (about 10x the text).
      initialMemoryPages: 1024,
      maxMemoryPages: Math.min(65536, 4096 + Math.ceil((chars * 12) / 65536)),
    });
    raw = r.rawOutput;
  } catch (e) {
    // A batch that fails as a whole (wasm out of memory) is retried file by file before giving up.
    if (batch.length > 1) {
      for (const i of batch) await runBatch(schema, [i], items, out, { ...opts, engine: 'wasm' });
      return;
    }
    const it = items[batch[0]!]!;
    out.set(batch[0]!, [finding('xsd-unavailable', { detail: (e as Error).message.split('\n')[0]! }, { file: it.file })]);
    return;
  }
  collect(raw, schema, batch, items, out);
}

/**
 * One batch through the system's xmllint. Inputs get neutral names (in/<k>.xml, symbolic links to the files,
 * or copies of in-memory documents) in a private temporary folder, so the output reads like the wasm build's.
 */
async function runNative(schema: string, batch: number[], items: readonly XsdItem[], timeoutMs: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'po-node-xsd-'));
  try {
    await mkdir(join(dir, 'in'));
    await Promise.all(
      batch.map((i, k) => {
        const it = items[i]!;
        const name = join(dir, 'in', `${k}.xml`);
        return it.abs ? symlink(it.abs, name) : writeFile(name, it.text);
      }),
    );
    const args = ['--nonet', '--noout', '--schema', join(fileURLToPath(XSD_ROOT), schema), ...batch.map((_i, k) => `in/${k}.xml`)];
    return await new Promise<string>((resolve, reject) => {
      const p = spawnChild('xmllint', args, { cwd: dir, stderr: true });
      const chunks: string[] = [];
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        p.kill('SIGKILL');
      }, timeoutMs);
      p.stderr!.setEncoding('utf8');
      p.stderr!.on('data', (c: string) => chunks.push(c));
      p.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      // Exit 1-4: the documents have errors (reported on stderr); 5 and up: xmllint itself failed.
      p.on('close', (code) => {
        clearTimeout(timer);
        if (timedOut) reject(new XsdTimeout(`xmllint stopped after ${timeoutMs} ms`));
        else if (code !== null && code < 5) resolve(chunks.join(''));
        else reject(new Error(`xmllint exited with ${code}`));
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function collect(raw: string, schema: string, batch: number[], items: readonly XsdItem[], out: Map<number, Finding[]>): void {
  const reports = new XmllintOutput(batch.map((_i, k) => `in/${k}.xml`));
  const done = new Map<number, XsdReport>();
  reports.onFile = (k, r) => done.set(k, r);
  reports.push(raw);
  reports.end();
  for (const [k, r] of done) {
    const it = items[batch[k]!]!;
    const fs = reportFindings(r, { file: it.file, severity: xsdSeverity(it.header), schema, text: () => it.text });
    if (fs.length) out.set(batch[k]!, fs);
  }
}

/** What xmllint wrote about one document: its message lines, in order, and its closing line if it wrote one. */
export interface XsdReport {
  messages: { line?: number; text: string }[];
  /** `validates`, `fails to validate` or `validation generated an internal error`; absent when not parsed. */
  summary?: string;
}

const SUMMARY = / (validates|fails to validate|validation generated an internal error)$/;

/**
 * xmllint's stderr, read as it arrives: documents are validated in command-line order, so every line belongs to
 * the current document or a later one. A document is complete when it writes its summary, a later one speaks,
 * or xmllint ends (`end()`); `onFile` gets each complete report. The source excerpt and caret libxml2 prints under
 * a parser error are skipped, so a document's own text can never pass for a message.
 */
export class XmllintOutput {
  onFile: (k: number, r: XsdReport) => void = () => {};
  /** The first document not yet complete. */
  next = 0;
  private partial = '';
  private skip = 0;
  private cur: XsdReport = { messages: [] };
  constructor(private readonly names: readonly string[]) {}

  push(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  /** xmllint exited: every document named is complete. */
  end(): void {
    if (this.partial) this.line(this.partial);
    this.partial = '';
    this.advance(this.names.length);
  }

  private line(line: string): void {
    if (this.skip > 0) {
      this.skip--;
      return;
    }
    for (let k = this.next; k < this.names.length; k++) {
      const name = this.names[k]!;
      if (!line.startsWith(name)) continue;
      const rest = line.slice(name.length);
      const m = /^(?::(\d+))?: (?:element [^:\s]+: )?(.*)$/.exec(rest);
      const summary = m ? undefined : SUMMARY.exec(rest);
      if (!m && !(summary && summary.index === 0)) continue;
      this.advance(k);
      if (m) {
        this.cur.messages.push({ ...(m[1] ? { line: Number(m[1]) } : {}), text: m[2]! });
        if (/^(parser|namespace) (error|warning) : /.test(m[2]!)) this.skip = 2;
      } else {
        this.cur.summary = summary![1]!;
        this.advance(k + 1);
      }
      return;
    }
    if (/ : /.test(line) && /(parser|namespace) (error|warning) : /.test(line)) this.skip = 2;
  }

  /** Documents before `k` are complete. */
  private advance(k: number): void {
    while (this.next < k) {
      this.onFile(this.next++, this.cur);
      this.cur = { messages: [] };
    }
  }
}

/** Findings of one document from its xmllint report, in xmllint's order; `text` is read only when a finding needs an XPath. */
export function reportFindings(r: XsdReport, doc: { file: string; severity: Severity; schema: string; text: () => string }): Finding[] {
  let text: string | undefined;
  const textOf = () => (text ??= doc.text());
  const out: Finding[] = [];
  for (const m of r.messages) {
    const f = toFinding(doc, textOf, m.text, m.line);
    if (f) out.push(f);
  }
  // libxml2 may stop with a summary only ("fails to validate", "validation generated an internal error").
  if (!out.length && r.summary && r.summary !== 'validates') {
    out.push(
      finding('xsd-invalid', { case: 'unlocated', schema: doc.schema, detail: r.summary }, { severity: doc.severity, file: doc.file }),
    );
  }
  return out;
}

// Namespaced names in libxml2 messages, written with the conventional prefixes (the element's own namespace unprefixed).
const NS_PREFIX: Record<string, string> = {
  'http://lca.jrc.it/ILCD/Common': 'common:',
  'http://www.iai.kit.edu/EPD/2013': 'epd:',
  'http://www.indata.network/EPD/2019': 'epd2:',
  'http://www.matml.org/': 'mat:',
  'http://www.w3.org/XML/1998/namespace': 'xml:',
  'http://lca.jrc.it/ILCD/Process': '',
  'http://lca.jrc.it/ILCD/Flow': '',
  'http://lca.jrc.it/ILCD/FlowProperty': '',
  'http://lca.jrc.it/ILCD/UnitGroup': '',
  'http://lca.jrc.it/ILCD/Contact': '',
  'http://lca.jrc.it/ILCD/Source': '',
  'http://lca.jrc.it/ILCD/LCIAMethod': '',
};

function toFinding(
  doc: { file: string; severity: Severity; schema: string },
  textOf: () => string,
  text: string,
  line: number | undefined,
): Finding | undefined {
  // `Schemas validity error : Element '{ns}name': message`; parser errors and warnings are also passed on.
  const m = /^(Schemas validity|Schemas parser|parser) (error|warning) : (.*)$/.exec(text);
  if (!m) return undefined;
  const msg = m[3]!.replace(
    /(##other)?\{([^}]*)\}/g,
    (_all, other: string | undefined, uri: string) => `${other ? `${other} ` : ''}${NS_PREFIX[uri] ?? `{${uri}}`}`,
  );
  const element = /^Element '(?:\{[^}]*\})?([\w.-]+)'/.exec(m[3]!)?.[1];
  const xpath = line ? xpathAtLine(textOf(), line, element) : undefined;
  return finding(
    'xsd-invalid',
    { schema: doc.schema, detail: msg },
    {
      // Not well-formed is an error for every dataset: the index-only read leaves that check of the body to libxml2.
      severity: m[1] === 'parser' && m[2] === 'error' ? 'error' : doc.severity,
      file: doc.file,
      ...(line ? { line } : {}),
      ...(xpath ? { xpath } : {}),
    },
  );
}
