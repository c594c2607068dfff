import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ResolvedConfig } from '../config/load.js';
import type { Finding } from '../findings.js';
import type { DatasetHeader } from '../parse/extract.js';
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

interface CacheDoc {
  format: 1;
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
  return join(dir, `${createHash('sha256').update(resolve(out)).digest('hex').slice(0, 24)}.json.gz`);
}

export function cacheKey(cfg: ResolvedConfig, now: Date, cwd: string): string {
  return createHash('sha256').update(JSON.stringify({ v: GENERATOR_VERSION, cfg, day: now.toISOString().slice(0, 10), cwd })).digest('hex');
}

export class BuildCache {
  private readonly prev: CacheDoc | undefined;
  private readonly next: CacheDoc;

  /** `fresh`: ignore what is on disk (--clean), but still record for the next build. */
  constructor(
    readonly out: string,
    key: string,
    fresh: boolean,
    readonly file: string = cacheFile(out),
  ) {
    this.next = { format: 1, key, inputs: {}, outputs: {} };
    if (fresh) return;
    try {
      const doc = JSON.parse(gunzipSync(readFileSync(this.file)).toString('utf8')) as CacheDoc;
      if (doc.format === 1 && doc.key === key) this.prev = doc;
    } catch {
      // No cache, or unreadable: a full build.
    }
  }

  /** Cached outcome of an unchanged plain input; ZIP entries are always read. */
  lookup(file: InputFile): CachedOutcome | undefined {
    if (file.bytes || file.entry) return undefined;
    const e = this.prev?.inputs[file.abs];
    if (!e) return undefined;
    const st = statSync(file.abs, { throwIfNoEntry: false });
    if (!st || st.size !== e.size || st.mtimeMs !== e.mtimeMs || st.ctimeMs !== e.ctimeMs) return undefined;
    this.next.inputs[file.abs] = e;
    return e.outcome;
  }

  /** Call before the file is read: a change during the read then shows as a stat mismatch next time. */
  stat(file: InputFile): { size: number; mtimeMs: number; ctimeMs: number } | undefined {
    if (file.bytes || file.entry) return undefined;
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

  /** After the site was swapped in; atomically. A failure to write it costs only the next build's time. */
  save(): void {
    try {
      mkdirSync(join(this.file, '..'), { recursive: true });
      const tmp = `${this.file}.tmp-${process.pid}`;
      writeFileSync(tmp, gzipSync(JSON.stringify(this.next), { level: 1 }));
      renameSync(tmp, this.file);
    } catch {
      // Read-only home or cache folder: builds stay correct, just not incremental.
    }
  }
}
