import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Catalog } from '../catalog/build.js';
import type { ReferenceReport } from '../catalog/references.js';
import type { ResolvedConfig } from '../config/load.js';
import { cmp, countFindings, type Finding } from '../findings.js';
import { DATASET_TYPES } from '../parse/ilcd.js';
import { GENERATOR_NAME, GENERATOR_VERSION } from '../version.js';
import { readFileReused, readInput } from '../read/zip.js';
import type { PlannedFile } from './files.js';
import { datasetFile, EPD_DIRS, HEALTH_FILES, LIST_JSON_TYPE, listFile, PROCESSES, SUB, V1_LIST } from '../site/routes.js';

export type HealthStatus = 'ok' | 'degraded' | 'fail';

export interface HealthCheck {
  id: string;
  ok: boolean;
  detail: string;
}

/** The health document (schemas/health.schema.json), served at the health URLs (src/site/routes.ts). */
export interface HealthDoc {
  status: HealthStatus;
  reasons: string[];
  builtAt: string;
  generator: { name: string; version: string };
  node: { id: string; baseUrl: string | null };
  epds: { listed: number; expired: number; expiredUuids: string[] };
  datasets: Record<string, number>;
  inputs: { files: number; rejected: number; skipped: number; superseded: number; errors: number; warnings: number };
  /** References followed from the published EPDs (src/catalog/references.ts). */
  references?: { total: number; resolved: number; missing: number; external: number };
  checks: HealthCheck[];
  lists: { path: string; entries: number; sha256: string }[];
}

/**
 * Content keys of files whose bytes are known without reading them, by path: hashed by the writer as it wrote them, or
 * linked from a previous site still as that build verified it (src/emit/write.ts).
 */
export type KnownHashes = ReadonlyMap<string, string>;

/**
 * Verify the written tree (every listed EPD present and byte-identical to its input, list counts)
 * and describe the result. Static files cannot report live state, so this is the honest substitute.
 */
export async function verifyAndDescribe(
  dir: string,
  catalog: Catalog,
  cfg: ResolvedConfig,
  builtAt: Date,
  findings: readonly Finding[],
  refs?: ReferenceReport,
  known?: KnownHashes,
  digests?: KnownHashes,
): Promise<HealthDoc> {
  const checks: HealthCheck[] = [];
  const lists: HealthDoc['lists'] = [];
  const hashFile = inodeHasher(dir, known);
  const n = catalog.epds.length;
  const datasetFolders = [...(cfg.pathSets.default ? [EPD_DIRS.default] : []), ...(cfg.pathSets.v1 ? [EPD_DIRS.v1] : [])];
  for (const folder of datasetFolders) {
    let good = 0;
    const bad: string[] = [];
    for (const d of catalog.epds) {
      if (hashFile(`${folder}/${d.header.uuid}`) === d.sha256) good++;
      else bad.push(d.header.uuid);
    }
    bad.sort(cmp);
    checks.push({
      id: `${folder}/<uuid>`,
      ok: bad.length === 0,
      detail: bad.length
        ? `${bad.length} of ${n} listed EPDs missing or altered: ${bad.slice(0, 5).join(', ')}`
        : `${good} of ${n} listed EPDs present and byte-identical to their inputs`,
    });
  }
  if (cfg.pathSets.default) {
    let deps = 0;
    const bad: string[] = [];
    for (const t of DATASET_TYPES) {
      if (t.type === 'process') continue;
      deps += catalog.byType[t.type].length;
      for (const d of catalog.byType[t.type]) {
        if (hashFile(datasetFile(t.folder, d.header.uuid)) !== d.sha256) bad.push(`${t.folder}/${d.header.uuid}`);
      }
    }
    bad.sort(cmp);
    checks.push({
      id: 'resource/<type>/<uuid>',
      ok: bad.length === 0,
      detail: bad.length
        ? `${bad.length} dependent datasets missing or altered: ${bad.slice(0, 5).join(', ')}`
        : `${deps} dependent datasets present and byte-identical`,
    });

    if (refs?.documents.length) {
      // Documents are copied like datasets: prove the served bytes are the input's.
      const badDocs: string[] = [];
      for (const sd of refs.documents) {
        const want = createHash('sha256')
          .update(await readInput(sd.file))
          .digest('hex');
        if (hashFile(SUB.sourceFile(sd.source.header.uuid, sd.name)) !== want) badDocs.push(`${sd.source.header.uuid}/${sd.name}`);
      }
      checks.push({
        id: 'resource/sources/<uuid>/<file>',
        ok: badDocs.length === 0,
        detail: badDocs.length
          ? `${badDocs.length} source documents missing or altered: ${badDocs.slice(0, 5).join(', ')}`
          : `${refs.documents.length} source documents present and byte-identical`,
      });
    }
    const xmlPath = listFile(PROCESSES, 'xml');
    const xml = scanList(join(dir, xmlPath), '<process:process ', /\sserviceapi:totalSize="(\d+)"/, undefined, digests?.get(xmlPath));
    checks.push({
      id: xmlPath,
      ok: xml.entries === n && xml.total === n,
      detail: `${xml.entries} entries, totalSize ${xml.total ?? 'missing'}, ${n} EPDs published`,
    });
    lists.push({ path: xmlPath, entries: xml.entries, sha256: xml.sha256 });
    lists.push(jsonListCheck(dir, listFile(PROCESSES, 'json'), '"dsType":"Process"', n, checks, digests));
  }
  if (cfg.pathSets.v1) lists.push(jsonListCheck(dir, V1_LIST, '"formatVersion": ', n, checks, digests));

  const counts = countFindings(findings);
  const year = builtAt.getUTCFullYear();
  const expired = catalog.epds
    .filter((d) => /^\d{4}$/.test(d.header.process?.validUntil ?? '') && Number(d.header.process!.validUntil) < year)
    .map((d) => d.header.uuid);
  const reasons: string[] = [];
  if (n === 0) reasons.push('no EPD could be published');
  for (const c of checks) if (!c.ok) reasons.push(`check ${c.id} failed: ${c.detail}`);
  if (catalog.stats.rejectedFiles) reasons.push(`${catalog.stats.rejectedFiles} input file(s) rejected`);
  const status: HealthStatus = n === 0 || checks.some((c) => !c.ok) ? 'fail' : catalog.stats.rejectedFiles ? 'degraded' : 'ok';
  return {
    status,
    reasons,
    builtAt: builtAt.toISOString(),
    generator: { name: GENERATOR_NAME, version: GENERATOR_VERSION },
    node: { id: cfg.node.id, baseUrl: cfg.baseUrl ?? null },
    epds: { listed: n, expired: expired.length, expiredUuids: expired },
    datasets: Object.fromEntries(DATASET_TYPES.map((t) => [t.folder, catalog.byType[t.type].length])),
    inputs: {
      files: catalog.stats.filesSeen,
      rejected: catalog.stats.rejectedFiles,
      skipped: catalog.stats.skippedFiles,
      superseded: catalog.stats.supersededDatasets,
      errors: counts.error,
      warnings: counts.warning,
    },
    ...(refs ? { references: { total: refs.total, resolved: refs.resolved, missing: refs.missing, external: refs.external } } : {}),
    checks,
    lists,
  };
}

export function healthFiles(doc: HealthDoc, cfg: ResolvedConfig): PlannedFile[] {
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const out: PlannedFile[] = [];
  if (cfg.pathSets.default) out.push({ path: HEALTH_FILES.default, contentType: LIST_JSON_TYPE, source: { text } });
  if (cfg.pathSets.v1) out.push({ path: HEALTH_FILES.v1, contentType: LIST_JSON_TYPE, source: { text } });
  return out;
}

function jsonListCheck(
  dir: string,
  path: string,
  marker: string,
  n: number,
  checks: HealthCheck[],
  digests?: KnownHashes,
): HealthDoc['lists'][number] {
  const r = scanList(join(dir, path), marker, /"totalCount":\s*(\d+)/, undefined, digests?.get(path));
  checks.push({
    id: path,
    ok: r.entries === n && r.total === n,
    detail: `${r.entries} entries, totalCount ${r.total ?? 'missing'}, ${n} EPDs published`,
  });
  return { path, entries: r.entries, sha256: r.sha256 };
}

/**
 * Read a written list back in chunks (at 100,000 EPDs a list is hundreds of MB: never parsed whole): its SHA-256,
 * its entries (each entry carries `marker` exactly once, as a key or start tag no escaped text can contain)
 * and the total it declares in its first bytes. A missing file gives -1 entries. `sha256`: the file's, when the writer
 * hashed the bytes as it wrote them (a fresh file: O_EXCL): not hashed again (40 MB of lists at 10,000 EPDs).
 */
export function scanList(
  path: string,
  marker: string,
  total: RegExp,
  chunkBytes = 1 << 20,
  sha256?: string,
): { sha256: string; entries: number; total?: number } {
  const hash = sha256 === undefined ? createHash('sha256') : undefined;
  // Bytes, not text: the marker is ASCII, and no byte of a multi-byte UTF-8 character is (decoding 40 MB of lists
  // cost a 1% rebuild of 10,000 EPDs about 0.3 s).
  const needle = Buffer.from(marker, 'latin1');
  let entries = 0;
  let head: string | undefined;
  // Synchronous reads: the thread pool is then busy compressing these very lists, and a streamed read waited behind
  // that work (0.5 s idle in a 1% rebuild of 10,000 EPDs).
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { sha256: '', entries: -1 };
  }
  try {
    // Less than a marker of the last chunk stays before the next one: a marker split across chunks is counted once.
    const keep = needle.length - 1;
    const buf = Buffer.allocUnsafe(keep + chunkBytes);
    let carry = 0;
    for (let n; (n = readSync(fd, buf, carry, chunkBytes, null)) > 0;) {
      const chunk = buf.subarray(carry, carry + n);
      hash?.update(chunk);
      // The total is declared in the first line.
      head ??= chunk.toString('latin1', 0, Math.min(n, 4096));
      const bytes = buf.subarray(0, carry + n);
      for (let i = bytes.indexOf(needle); i >= 0; i = bytes.indexOf(needle, i + needle.length)) entries++;
      carry = Math.min(keep, bytes.length);
      bytes.copy(buf, 0, bytes.length - carry);
    }
  } catch {
    return { sha256: '', entries: -1 };
  } finally {
    closeSync(fd);
  }
  const m = total.exec(head ?? '');
  return { sha256: hash ? hash.digest('hex') : sha256!, entries, ...(m ? { total: Number(m[1]) } : {}) };
}

/**
 * SHA-256 of a file, read once per inode: hard links (the writer links identical files) are hashed once. A file the
 * writer linked from the previous site, still as that build verified and recorded it, is not read again: its key is
 * its hash.
 */
function inodeHasher(dir: string, known?: KnownHashes): (rel: string) => string | undefined {
  const byInode = new Map<string, string | undefined>();
  // By the path relative to the site (`/`-separated, as the writer records it): the absolute path is joined only for
  // a file not known (path.join costs about 1 us: 20,000 EPD files at 10,000 EPDs, nearly all known).
  return (rel) => {
    const key = known?.get(rel);
    if (key?.startsWith('sha256:')) return key.slice(7);
    const path = join(dir, rel);
    const st = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (!st?.isFile()) return undefined;
    // Some file systems report no inode numbers (0): no sharing there.
    const id = st.ino ? `${st.dev}:${st.ino}` : path;
    if (!byInode.has(id)) {
      // Synchronous, as the lists (scanList): the thread pool is compressing them meanwhile. Into the thread's reused
      // buffer, as the cache hashes inputs: hashed before anything else can read into it.
      let h: string | undefined;
      try {
        h = createHash('sha256').update(readFileReused(path)).digest('hex');
      } catch {
        h = undefined;
      }
      byInode.set(id, h);
    }
    return byInode.get(id);
  };
}
