import { crc32 as nodeCrc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { promisify } from 'node:util';
import { readFileExact } from '../read/zip.js';

/**
 * A minimal deterministic ZIP writer (PKZIP 2.0: stored or deflated entries, no ZIP64, constant timestamps). It
 * exists so an entry can be compressed once and reused: every per-EPD ZIP export repeats the same ~50 dependency
 * datasets. An entry is prepared once (compressed, its local header and central record made) and an export is the
 * list of those buffers plus one central directory, written with one writev: no export is ever copied into one buffer.
 */
export interface ZipEntry {
  name: string;
  crc: number;
  size: number;
  method: 0 | 8;
  data: Uint8Array;
  /** Local file header, name included. */
  local: Buffer;
  /** Central directory record, name included, with local header offset 0 (set per archive). */
  central: Buffer;
}

/** 2000-01-01 00:00, as DOS date and time: entries never carry the build time. */
const DOS_DATE = ((2000 - 1980) << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
/**
 * Level 1: 0.26 ms of CPU per EPD entry vs 0.47 ms at level 6, for exports 0.5% larger (docs/dependencies.md). In the
 * thread pool, so the ZIP of one EPD is compressed while the main thread writes others.
 */
const LEVEL = 1;
const deflate = promisify(deflateRaw);

export async function zipEntry(name: string, bytes: Uint8Array, compress: boolean): Promise<ZipEntry> {
  return entryOf(name, bytes, compress ? await deflate(bytes, { level: LEVEL }) : bytes);
}

/** zipEntry compressed in this thread (the page thread's: it has a core of its own, the thread pool gains nothing). */
export function zipEntrySync(name: string, bytes: Uint8Array, compress: boolean): ZipEntry {
  return entryOf(name, bytes, compress ? deflateRawSync(bytes, { level: LEVEL }) : bytes);
}

function entryOf(name: string, bytes: Uint8Array, data: Uint8Array): ZipEntry {
  const crc = crc32(bytes);
  // Incompressible data is stored, as zip tools do.
  return data.length < bytes.length
    ? withName({ crc, size: bytes.length, method: 8, data }, name)
    : withName({ crc, size: bytes.length, method: 0, data: bytes }, name);
}

/** A shared entry as `name` (itself when it was made under that name). */
export function named(e: ZipEntry, name: string): ZipEntry {
  return e.name === name ? e : withName(e, name);
}

/** The same entry under another name (one input file named differently by two exports). */
export function withName(e: Pick<ZipEntry, 'crc' | 'size' | 'method' | 'data'>, name: string): ZipEntry {
  const n = Buffer.from(name, 'utf8');
  const local = Buffer.alloc(30 + n.length);
  const central = Buffer.alloc(46 + n.length);
  local.writeUInt32LE(0x04034b50, 0);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  // Local fields from "version needed" on are the central ones from offset 6; the rest stays zero (offset set per archive).
  const fields = (b: Buffer, o: number) => {
    b.writeUInt16LE(20, o);
    b.writeUInt16LE(/^[\x20-\x7e]*$/.test(name) ? 0 : 0x800, o + 2);
    b.writeUInt16LE(e.method, o + 4);
    b.writeUInt16LE(DOS_TIME, o + 6);
    b.writeUInt16LE(DOS_DATE, o + 8);
    b.writeUInt32LE(e.crc >>> 0, o + 10);
    b.writeUInt32LE(e.data.length, o + 14);
    b.writeUInt32LE(e.size, o + 18);
    b.writeUInt16LE(n.length, o + 22);
  };
  fields(local, 4);
  fields(central, 6);
  n.copy(local, 30);
  n.copy(central, 46);
  return { name, crc: e.crc, size: e.size, method: e.method, data: e.data, local, central };
}

/** The archive as buffers to write in order (entries as given; the last buffer is the central directory). */
export function zipParts(entries: readonly ZipEntry[]): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let cdSize = 0;
  for (const e of entries) cdSize += e.central.length;
  const cd = Buffer.alloc(cdSize + 22);
  let offset = 0;
  let o = 0;
  for (const e of entries) {
    parts.push(e.local, e.data);
    e.central.copy(cd, o);
    cd.writeUInt32LE(offset, o + 42);
    o += e.central.length;
    offset += e.local.length + e.data.length;
  }
  cd.writeUInt32LE(0x06054b50, o);
  cd.writeUInt16LE(entries.length, o + 8);
  cd.writeUInt16LE(entries.length, o + 10);
  cd.writeUInt32LE(cdSize, o + 12);
  cd.writeUInt32LE(offset, o + 16);
  parts.push(cd);
  return parts;
}

/** A ZIP export's entries as plain files, in order: the page thread makes it from them (zipFromFiles). */
export type FileEntries = { name: string; path: string; compress: boolean; shared: boolean }[];

/**
 * A ZIP export made from plain files in this thread, as src/emit/dependencies.ts's zipExport makes it; `cache`: the
 * shared entries, by method and path.
 */
export function zipFromFiles(entries: FileEntries, cache: Map<string, ZipEntry>): Uint8Array[] {
  return zipParts(
    entries.map((e) => {
      const make = () => zipEntrySync(e.name, readFileExact(e.path), e.compress);
      if (!e.shared) return make();
      const k = `${+e.compress}${e.path}`;
      let z = cache.get(k);
      if (!z) cache.set(k, (z = make()));
      return named(z, e.name);
    }),
  );
}

/** The archive in one buffer (tests, small archives). */
export function zipBytes(entries: readonly ZipEntry[]): Buffer {
  return Buffer.concat(zipParts(entries));
}

let table: Uint32Array | undefined;
/** zlib.crc32 where Node has it (>= 20.15), else a table-driven fallback. */
function crc32(b: Uint8Array): number {
  if (typeof nodeCrc32 === 'function') return nodeCrc32(b);
  table ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = table[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
