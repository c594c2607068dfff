import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { Inflate } from 'fflate';
import type { Finding } from '../findings.js';
import { cmp } from '../findings.js';
import type { Code, ParamsOf } from '../messages/catalog.js';
import { finding } from '../messages/finding.js';
import type { InputFile, InputKind, ZipEntryRef } from './inputs.js';
import { append } from '../util/append.js';

/** Limits against hostile archives; exceeding one skips the entry (or the archive) with a finding. */
export interface ZipLimits {
  /** Largest ZIP file read at all, bytes. */
  maxArchiveSize: number;
  /** Largest uncompressed size of one entry, bytes. */
  maxEntrySize: number;
  /** Largest uncompressed size of the entries read from all archives of one build together, bytes. */
  maxTotalSize: number;
  /** Largest uncompressed/compressed ratio of one entry (zip bombs reach 1000 and more). */
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxArchiveSize: 1024 * 1024 * 1024,
  maxEntrySize: 256 * 1024 * 1024,
  maxTotalSize: 2048 * 1024 * 1024,
  maxRatio: 200,
};

interface CentralEntry extends ZipEntryRef {
  name: string;
  flags: number;
  size: number;
}

/** An entry that cannot be unpacked (corrupt, or larger than it claims); `ruleId` names the finding. */
export class ZipEntryError extends Error {
  constructor(
    message: string,
    readonly ruleId: 'zip-entry-corrupt' | 'input-too-large' = 'zip-entry-corrupt',
  ) {
    super(message);
  }
}

/**
 * Replace every `.zip` input by its entries. Only the central directory is read here: an entry is inflated
 * when it is read (readInput), one at a time and capped at its declared size, so memory never holds a whole
 * archive's contents (two archives of 8 x 250 MB entries peaked at 4.5 GB when entries were unpacked here).
 * `limits.maxTotalSize` is a budget for all archives of the build together.
 */
export async function expandZips(
  files: readonly InputFile[],
  limits: ZipLimits = DEFAULT_ZIP_LIMITS,
): Promise<{ files: InputFile[]; findings: Finding[] }> {
  const out: InputFile[] = [];
  const findings: Finding[] = [];
  const budget = { left: limits.maxTotalSize };
  for (const f of files) {
    if (f.kind !== 'zip') {
      out.push(f);
      continue;
    }
    const r = await readZip(f, limits, budget);
    append(out, r.files);
    append(findings, r.findings);
  }
  out.sort((a, b) => cmp(a.path, b.path) || cmp(a.entry ?? '', b.entry ?? ''));
  return { files: out, findings };
}

/** List an archive's entries within the limits; `budget.left` (uncompressed bytes) is shared by the archives of a build. */
export async function readZip(
  zip: InputFile,
  limits: ZipLimits,
  budget = { left: limits.maxTotalSize },
): Promise<{ files: InputFile[]; findings: Finding[] }> {
  const findings: Finding[] = [];
  const bad = <C extends Code>(code: C, params: ParamsOf<C>, entry?: string) =>
    findings.push(finding(code, params, { file: zip.path, ...(entry !== undefined ? { entry } : {}) }));
  if (zip.size > limits.maxArchiveSize) {
    bad('zip-too-large', { case: 'archive', bytes: zip.size, limit: limits.maxArchiveSize });
    return { files: [], findings };
  }
  let entries: CentralEntry[];
  try {
    const fh = await open(zip.abs, 'r');
    try {
      entries = await centralDirectory(fh);
    } finally {
      await fh.close();
    }
  } catch (e) {
    if (e instanceof ZipEntryError) {
      bad('zip-malformed', { detail: e.message });
    } else {
      bad('input-unreadable', { case: 'file', code: (e as NodeJS.ErrnoException).code ?? 'error' });
    }
    return { files: [], findings };
  }
  const files: InputFile[] = [];
  for (const e of entries) {
    if (e.name.endsWith('/')) continue; // folder entry
    const unsafe = unsafeEntryName(e.name);
    if (unsafe) {
      bad('zip-entry-unsafe', { reason: unsafe }, e.name);
      continue;
    }
    const name = e.name.replace(/^\.\//, '');
    const kind = entryKind(name);
    if (kind === 'other') {
      bad('input-not-xml', {}, name);
      // Listed (not read) so it counts as skipped, as the same file in a folder does.
      files.push({ path: zip.path, abs: zip.abs, entry: name, size: e.size, kind });
      continue;
    }
    if (e.flags & 0x1) {
      bad('zip-entry-encrypted', {}, name);
      continue;
    }
    if (e.method !== 0 && e.method !== 8) {
      bad('zip-entry-unsupported', { method: e.method }, name);
      continue;
    }
    if (e.method === 0 && e.compressedSize !== e.size) {
      bad('zip-entry-corrupt', { case: 'stored' }, name);
      continue;
    }
    if (e.size > limits.maxEntrySize) {
      bad('zip-entry-too-large', { bytes: e.size, limit: limits.maxEntrySize }, name);
      continue;
    }
    if (e.compressedSize > 0 && e.size / e.compressedSize > limits.maxRatio && e.size > 1024 * 1024) {
      bad('zip-entry-ratio', { ratio: Math.round(e.size / e.compressedSize), limit: limits.maxRatio }, name);
      continue;
    }
    if (e.size > budget.left) {
      bad('zip-too-large', { case: 'total', limit: limits.maxTotalSize }, name);
      budget.left = 0;
      break;
    }
    budget.left -= e.size;
    const at: ZipEntryRef = { method: e.method, compressedSize: e.compressedSize, localOffset: e.localOffset };
    files.push({ path: zip.path, abs: zip.abs, entry: name, size: e.size, kind, zip: at });
  }
  files.sort((a, b) => cmp(a.entry!, b.entry!));
  return { files, findings };
}

/** Why an entry name is unsafe, or undefined: absolute, drive letters, backslashes, `..`, control characters. */
export function unsafeEntryName(name: string): string | undefined {
  if (name.includes('\\')) return `contains a backslash (${JSON.stringify(name)})`;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return `is an absolute path (${JSON.stringify(name)})`;
  if (name.split('/').some((s) => s === '..')) return `escapes the archive with ".." (${JSON.stringify(name)})`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'contains control characters';
  if (name === '') return 'is empty';
  return undefined;
}

function entryKind(name: string): InputKind {
  if (name.split('/').includes('external_docs')) return 'document';
  return /\.xml$/i.test(name) ? 'xml' : 'other';
}

/** Read the central directory (end record searched from the end; ZIP64 refused) without reading the entries. */
async function centralDirectory(fh: FileHandle): Promise<CentralEntry[]> {
  const size = (await fh.stat()).size;
  const tailLen = Math.min(size, 22 + 0xffff);
  const tail = await readAt(fh, size - tailLen, tailLen);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipEntryError('no end of central directory');
  const count = tail.readUInt16LE(eocd + 10);
  const cdSize = tail.readUInt32LE(eocd + 12);
  const cdOffset = tail.readUInt32LE(eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff) throw new ZipEntryError('ZIP64 archives are not supported');
  if (cdOffset + cdSize > size) throw new ZipEntryError('broken central directory');
  const buf = await readAt(fh, cdOffset, cdSize);
  const out: CentralEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50) throw new ZipEntryError('broken central directory');
    const flags = buf.readUInt16LE(p + 8);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const raw = buf.subarray(p + 46, p + 46 + nameLen);
    // Bit 11: UTF-8 names. soda4LCA writes UTF-8 without always setting it; latin1 only if invalid UTF-8.
    const utf8 = raw.toString('utf8');
    const name = flags & 0x800 || !utf8.includes('\ufffd') ? utf8 : raw.toString('latin1');
    out.push({
      name: name.normalize('NFC'),
      flags,
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      localOffset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

async function readAt(fh: FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/**
 * The bytes of an input: the file, or a ZIP entry inflated from its archive in 4 KiB steps with a running cap
 * (the declared size, and `cap` when lower), so an entry that lies about its size never grows past it.
 * Synchronous for entries: callers hash documents synchronously, and the work is CPU-bound anyway.
 */
export function inputBytes(f: InputFile, cap = Infinity): Buffer {
  if (!f.zip) return readFileSync(f.abs);
  const e = f.zip;
  const fd = openSync(f.abs, 'r');
  try {
    const head = Buffer.alloc(30);
    const n = readSync(fd, head, 0, 30, e.localOffset);
    if (n !== 30 || head.readUInt32LE(0) !== 0x04034b50) throw new ZipEntryError('local header missing');
    let pos = e.localOffset + 30 + head.readUInt16LE(26) + head.readUInt16LE(28);
    const limit = Math.min(f.size, cap);
    // Filled in place: the entry is held once, never as chunks plus their concatenation.
    const out = Buffer.allocUnsafe(limit);
    let got = 0;
    const take = (chunk: Uint8Array) => {
      if (got + chunk.length > f.size) throw new ZipEntryError(`it unpacks to more than its declared ${f.size} bytes`);
      if (got + chunk.length > limit) throw new ZipEntryError(`it unpacks to more than ${limit} bytes`, 'input-too-large');
      out.set(chunk, got);
      got += chunk.length;
    };
    const inf = e.method === 8 ? new Inflate(take) : undefined;
    // Small steps: deflate unpacks up to ~1000x, and fflate allocates each step's output whole.
    const step = Buffer.alloc(4096);
    let left = e.compressedSize;
    if (left === 0) inf?.push(new Uint8Array(0), true);
    while (left > 0) {
      const n = readSync(fd, step, 0, Math.min(step.length, left), pos);
      if (n === 0) throw new ZipEntryError('data truncated');
      pos += n;
      left -= n;
      if (inf) inf.push(step.subarray(0, n), left === 0);
      else take(step.subarray(0, n));
    }
    if (got !== f.size) throw new ZipEntryError(`it unpacks to ${got} bytes, not the declared ${f.size}`);
    return out;
  } catch (err) {
    // fflate throws plain errors on corrupt deflate data.
    throw err instanceof ZipEntryError ? err : new ZipEntryError((err as Error).message);
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of an input (a file, or a ZIP entry unpacked with a running cap). Files are read synchronously into a
 * buffer of their size: `fs.promises.readFile` cost 1.39 ms per EPD under load (chunked reads, a promise per chunk),
 * one `readSync` 0.02-0.16 ms (docs/performance.md).
 */
// eslint-disable-next-line @typescript-eslint/require-await -- synchronous reads are the point; errors still reject
export async function readInput(f: InputFile, cap = Infinity): Promise<Buffer> {
  return f.zip ? inputBytes(f, cap) : readFileExact(f.abs);
}

/**
 * A plain file's bytes in this thread's one reused buffer (files under 1 MB; a larger one gets its own): a fresh
 * buffer per EPD cost its page faults and its free (a `read` of 79 KB: 0.15-0.24 ms that way, 0.04-0.06 ms into a
 * reused one). The bytes are valid only until the next call in this thread, so a caller uses them, and copies what
 * it keeps, before anything else can run (no `await` in between).
 */
export function readFileReused(abs: string): Buffer {
  return readFileExact(abs, (reused ??= Buffer.allocUnsafe(1 << 20)));
}
let reused: Buffer | undefined;

/**
 * A whole file in one exact-size buffer; a file that grew since its stat is read whole anyway (readFileSync). With
 * `into` (a buffer the caller owns and reuses), a file that fits is read into its start instead: no fresh memory to
 * fault in and free per file, but the bytes are only valid until the caller's next read into it.
 */
export function readFileExact(abs: string, into?: Buffer): Buffer {
  const fd = openSync(abs, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = into && size < into.length ? into.subarray(0, size) : Buffer.allocUnsafe(size);
    let got = 0;
    for (let n = 1; got < size && n > 0; got += n) n = readSync(fd, buf, got, size - got, got);
    if (got < size) return buf.subarray(0, got);
    // Grown meanwhile (or a special file that reports size 0): read the rest the ordinary way.
    const probe = Buffer.allocUnsafe(1);
    if (readSync(fd, probe, 0, 1, size) === 0) return buf;
    return readFileSync(abs);
  } finally {
    closeSync(fd);
  }
}
