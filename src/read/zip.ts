import { readFile } from 'node:fs/promises';
import { Inflate } from 'fflate';
import type { Finding } from '../findings.js';
import { cmp } from '../findings.js';
import type { InputFile, InputKind } from './inputs.js';
import { append } from '../append.js';

/** Limits against hostile archives; exceeding one skips the entry (or the archive) with a finding. */
export interface ZipLimits {
  /** Largest ZIP file read at all, bytes. */
  maxArchiveSize: number;
  /** Largest uncompressed size of one entry, bytes. */
  maxEntrySize: number;
  /** Largest uncompressed size of all entries of one archive together, bytes. */
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

interface CentralEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

/**
 * Replace every `.zip` input by its entries, read into memory (bytes are then served from memory:
 * nothing from an archive is ever written to disk except as a planned output).
 */
export async function expandZips(files: readonly InputFile[], limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<{ files: InputFile[]; findings: Finding[] }> {
  const out: InputFile[] = [];
  const findings: Finding[] = [];
  for (const f of files) {
    if (f.kind !== 'zip') {
      out.push(f);
      continue;
    }
    const r = await readZip(f, limits);
    append(out, r.files);
    append(findings, r.findings);
  }
  out.sort((a, b) => cmp(a.path, b.path) || cmp(a.entry ?? '', b.entry ?? ''));
  return { files: out, findings };
}

export async function readZip(zip: InputFile, limits: ZipLimits): Promise<{ files: InputFile[]; findings: Finding[] }> {
  const findings: Finding[] = [];
  const bad = (ruleId: string, message: string, entry?: string, severity: Finding['severity'] = 'error') =>
    findings.push({ ruleId, severity, file: zip.path, ...(entry !== undefined ? { entry } : {}), message });
  if (zip.size > limits.maxArchiveSize) {
    bad('zip-too-large', `The archive is ${mb(zip.size)} MB, over the ${mb(limits.maxArchiveSize)} MB limit; it was not read. Raise limits.maxZipSizeMB if it is genuine.`);
    return { files: [], findings };
  }
  let buf: Buffer;
  try {
    buf = await readFile(zip.abs);
  } catch (e) {
    bad('input-unreadable', `The file cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); check its permissions.`);
    return { files: [], findings };
  }
  let entries: CentralEntry[];
  try {
    entries = centralDirectory(buf);
  } catch (e) {
    bad('zip-malformed', `Not a readable ZIP archive (${(e as Error).message}); re-export it or unpack it into a folder.`);
    return { files: [], findings };
  }
  const files: InputFile[] = [];
  let total = 0;
  for (const e of entries) {
    if (e.name.endsWith('/')) continue; // folder entry
    const unsafe = unsafeEntryName(e.name);
    if (unsafe) {
      bad('zip-entry-unsafe', `Entry refused: its name ${unsafe}; an ILCD export only holds relative paths such as ILCD/processes/<uuid>.xml.`, e.name);
      continue;
    }
    const name = e.name.replace(/^\.\//, '');
    const kind = entryKind(name);
    if (kind === 'other') {
      findings.push({ ruleId: 'input-not-xml', severity: 'info', file: zip.path, entry: name, message: 'Skipped: not an XML file (only .xml datasets are read).' });
      // Listed (not read) so it counts as skipped, as the same file in a folder does.
      files.push({ path: zip.path, abs: zip.abs, entry: name, size: e.size, kind });
      continue;
    }
    if (e.flags & 0x1) {
      bad('zip-entry-encrypted', 'Entry refused: it is encrypted; export the data without a password.', name);
      continue;
    }
    if (e.method !== 0 && e.method !== 8) {
      bad('zip-entry-unsupported', `Entry refused: compression method ${e.method} is not supported (only stored and deflate); re-export with standard ZIP compression.`, name);
      continue;
    }
    if (e.size > limits.maxEntrySize) {
      bad('zip-entry-too-large', `Entry refused: it unpacks to ${mb(e.size)} MB, over the ${mb(limits.maxEntrySize)} MB limit.`, name);
      continue;
    }
    if (e.compressedSize > 0 && e.size / e.compressedSize > limits.maxRatio && e.size > 1024 * 1024) {
      bad('zip-entry-ratio', `Entry refused: it unpacks ${Math.round(e.size / e.compressedSize)} times its compressed size (limit ${limits.maxRatio}), which is how zip bombs look.`, name);
      continue;
    }
    if (total + e.size > limits.maxTotalSize) {
      bad('zip-too-large', `Archive contents exceed ${mb(limits.maxTotalSize)} MB uncompressed; this entry and the rest were not read.`, name);
      break;
    }
    let bytes: Uint8Array;
    try {
      // The central directory's sizes can lie: inflate with a hard cap at the declared size.
      bytes = entryBytes(buf, e, Math.min(e.size, limits.maxEntrySize));
    } catch (err) {
      bad('zip-entry-corrupt', `Entry refused: ${(err as Error).message}.`, name);
      continue;
    }
    total += bytes.length;
    files.push({ path: zip.path, abs: zip.abs, entry: name, size: bytes.length, kind, bytes });
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

/** Read the central directory (end record searched from the end; ZIP64 refused). */
function centralDirectory(buf: Buffer): CentralEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('no end of central directory');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  if (count === 0xffff || p === 0xffffffff) throw new Error('ZIP64 archives are not supported');
  const out: CentralEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (p + 46 > buf.length || buf.readUInt32LE(p) !== 0x02014b50) throw new Error('broken central directory');
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

function entryBytes(buf: Buffer, e: CentralEntry, cap: number): Uint8Array {
  const h = e.localOffset;
  if (h + 30 > buf.length || buf.readUInt32LE(h) !== 0x04034b50) throw new Error('local header missing');
  const start = h + 30 + buf.readUInt16LE(h + 26) + buf.readUInt16LE(h + 28);
  const data = buf.subarray(start, start + e.compressedSize);
  if (data.length !== e.compressedSize) throw new Error('data truncated');
  if (e.method === 0) {
    if (e.compressedSize !== e.size) throw new Error('stored entry with inconsistent sizes');
    return data;
  }
  const chunks: Uint8Array[] = [];
  let got = 0;
  const inf = new Inflate((chunk) => {
    got += chunk.length;
    if (got > cap) throw new Error(`it unpacks to more than its declared ${e.size} bytes`);
    chunks.push(chunk);
  });
  const step = 64 * 1024;
  for (let i = 0; i < data.length; i += step) inf.push(data.subarray(i, i + step), i + step >= data.length);
  if (data.length === 0) inf.push(new Uint8Array(0), true);
  if (got !== e.size) throw new Error(`it unpacks to ${got} bytes, not the declared ${e.size}`);
  return Buffer.concat(chunks);
}

function mb(n: number): string {
  return (n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1);
}
