import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import type { Interner } from '../catalog/intern.js';
import type { ResolvedConfig } from '../config/load.js';
import type { Finding } from '../findings.js';
import type { DatasetHeader, Ref } from '../parse/extract.js';
import type { InputFile } from '../read/inputs.js';
import { GENERATOR_VERSION } from '../version.js';

/**
 * Incremental builds (docs/performance.md). One gzipped JSON file per output folder in a cache folder
 * (PO_NODE_CACHE_DIR, else $XDG_CACHE_HOME/po-node, else ~/.cache/po-node): not in the site, which must
 * stay reproducible and must not publish local paths, and not beside it. It maps each plain input file (path, size,
 * mtime, ctime) to what reading it produced (index header, sha256, findings of levels 1-4), and each
 * emitted file that has a content key to that key. One key over po-node version, resolved config,
 * build day (date rules) and working directory invalidates everything at once.
 */
export interface CachedOutcome {
  findings: Finding[];
  header?: DatasetHeader;
  sha256?: string;
  skipped?: boolean;
}

interface InputEntry {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  outcome: CachedOutcome;
}

/** Bump when the cache's layout or the meaning of its entries changes. 3: references written once, by number. */
const FORMAT = 3;

interface CacheDoc {
  format: number;
  key: string;
  inputs: Record<string, InputEntry>;
  /** Emitted path -> content key and size, for the site that was last written. */
  outputs: Record<string, { key: string; size: number }>;
}

export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.PO_NODE_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'po-node');
}

/** The cache file of one output folder. */
export function cacheFile(out: string, dir: string = defaultCacheDir()): string {
  return join(dir, `${createHash('sha256').update(resolve(out)).digest('hex').slice(0, 24)}.ndjson.gz`);
}

export function cacheKey(cfg: ResolvedConfig, now: Date, cwd: string): string {
  return createHash('sha256').update(JSON.stringify({ v: GENERATOR_VERSION, cfg, day: now.toISOString().slice(0, 10), cwd })).digest('hex');
}

export class BuildCache {
  private prev: CacheDoc | undefined;
  private readonly next: CacheDoc;

  /** `fresh`: ignore what is on disk (--clean), but still record for the next build. Call load() before use. */
  constructor(
    readonly out: string,
    private readonly key: string,
    private readonly fresh: boolean,
    readonly file: string = cacheFile(out),
  ) {
    this.next = { format: FORMAT, key, inputs: {}, outputs: {} };
  }

  /**
   * Read the previous build's cache. It is streamed line by line (one entry a line, gzipped): a corpus of
   * 100,000 EPDs makes a cache of about a gigabyte of JSON, too much for one string.
   */
  async load(interner?: Interner): Promise<this> {
    if (this.fresh) return this;
    const doc: CacheDoc = { format: FORMAT, key: this.key, inputs: {}, outputs: {} };
    try {
      if (!existsSync(this.file)) return this;
      const gunzip = createGunzip();
      // pipe() does not forward errors: a vanished or truncated file must end the loop, not the process.
      createReadStream(this.file).on('error', (e) => gunzip.destroy(e)).pipe(gunzip);
      const lines = createInterface({ input: gunzip, crlfDelay: Infinity });
      let first = true;
      const refs: Ref[] = [];
      for await (const line of lines) {
        if (first) {
          const head = JSON.parse(line) as { format: number; key: string };
          if (head.format !== FORMAT || head.key !== this.key) return this;
          first = false;
          continue;
        }
        const e = JSON.parse(line) as ['r', number, Ref] | ['i', string, InputEntry] | ['o', string, { key: string; size: number }];
        // Interned as read, so the previous index never exists twice in memory.
        if (e[0] === 'r') refs[e[1]] = interner ? interner.ref(e[2]) : e[2];
        else if (e[0] === 'i') {
          const h = e[2].outcome.header as (DatasetHeader & { references: unknown[] }) | undefined;
          if (h) h.references = (h.references as number[]).map((k) => refs[k]!);
          doc.inputs[e[1]] = interner ? { ...e[2], outcome: interner.outcome(e[2].outcome) } : e[2];
        } else doc.outputs[e[1]] = e[2];
      }
      if (!first) this.prev = doc;
    } catch {
      // No cache, or unreadable: a full build.
    }
    return this;
  }

  /** Cached outcome of an unchanged plain input; ZIP entries are always read. */
  lookup(file: InputFile): CachedOutcome | undefined {
    if (file.entry !== undefined) return undefined;
    const e = this.prev?.inputs[file.abs];
    if (!e) return undefined;
    const st = statSync(file.abs, { throwIfNoEntry: false });
    if (!st || st.size !== e.size || st.mtimeMs !== e.mtimeMs || st.ctimeMs !== e.ctimeMs) return undefined;
    this.next.inputs[file.abs] = e;
    return e.outcome;
  }

  /** Call before the file is read: a change during the read then shows as a stat mismatch next time. */
  stat(file: InputFile): { size: number; mtimeMs: number; ctimeMs: number } | undefined {
    if (file.entry !== undefined) return undefined;
    const st = statSync(file.abs, { throwIfNoEntry: false });
    return st ? { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs } : undefined;
  }

  record(file: InputFile, st: { size: number; mtimeMs: number; ctimeMs: number } | undefined, outcome: CachedOutcome): void {
    if (st) this.next.inputs[file.abs] = { ...st, outcome };
  }

  /** The previous site's file at `path`, when it was emitted with the same content key. */
  reusable(path: string, key: string): { path: string; size: number } | undefined {
    const o = this.prev?.outputs[path];
    return o && o.key === key ? { path: join(this.out, path), size: o.size } : undefined;
  }

  emitted(path: string, key: string, size: number): void {
    this.next.outputs[path] = { key, size };
  }

  /** Every input a cache hit and every output the same key and size as last time. */
  private unchanged(): boolean {
    const prev = this.prev;
    if (!prev) return false;
    const inputs = Object.keys(this.next.inputs);
    if (inputs.length !== Object.keys(prev.inputs).length || !inputs.every((k) => this.next.inputs[k] === prev.inputs[k])) return false;
    const outputs = Object.entries(this.next.outputs);
    if (outputs.length !== Object.keys(prev.outputs).length) return false;
    return outputs.every(([k, o]) => prev.outputs[k]?.key === o.key && prev.outputs[k]?.size === o.size);
  }

  /** After the site was swapped in; atomically. A failure to write it costs only the next build's time. */
  async save(): Promise<void> {
    // A no-op rebuild leaves the cache as it was: no need to write it again.
    if (this.unchanged()) return;
    const tmp = `${this.file}.tmp-${process.pid}`;
    try {
      mkdirSync(join(this.file, '..'), { recursive: true });
      const gz = createGzip({ level: 1 });
      const done = pipeline(gz, createWriteStream(tmp));
      const write = async (line: string) => {
        if (!gz.write(`${line}\n`)) await once(gz, 'drain');
      };
      await write(JSON.stringify({ format: FORMAT, key: this.next.key }));
      // Each distinct reference once ('r' line), then by number: EPDs share most of theirs (flows, methods).
      const refIds = new Map<Ref, number>();
      for (const [k, v] of Object.entries(this.next.inputs)) {
        const h = v.outcome.header;
        if (!h) {
          await write(JSON.stringify(['i', k, v]));
          continue;
        }
        const ids: number[] = [];
        for (const r of h.references) {
          let id = refIds.get(r);
          if (id === undefined) {
            refIds.set(r, (id = refIds.size));
            await write(JSON.stringify(['r', id, r]));
          }
          ids.push(id);
        }
        await write(JSON.stringify(['i', k, { ...v, outcome: { ...v.outcome, header: { ...h, references: ids } } }]));
      }
      for (const [k, v] of Object.entries(this.next.outputs)) await write(JSON.stringify(['o', k, v]));
      gz.end();
      await done;
      renameSync(tmp, this.file);
    } catch {
      // Read-only home or cache folder: builds stay correct, just not incremental.
      rmSync(tmp, { force: true });
    }
  }
}
