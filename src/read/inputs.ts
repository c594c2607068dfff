import { readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { InputError } from '../errors.js';
import type { Finding } from '../findings.js';
import { cmp } from '../findings.js';
import { finding } from '../messages/finding.js';
import { isInside, toDisplay, toPosix } from '../util/paths.js';

/** globby only when an input is a pattern: the read workers import this module, and loading globby cost each 90 ms. */
const glob = () => import('globby');

export type InputKind = 'xml' | 'document' | 'zip' | 'other';

/** Where an entry's data sits in its archive: enough to inflate it later, one entry at a time. */
export interface ZipEntryRef {
  method: number;
  compressedSize: number;
  /** Offset of the entry's local header. */
  localOffset: number;
}

export interface InputFile {
  /** Path as shown to people: relative to the working directory, `/` separators. */
  path: string;
  abs: string;
  size: number;
  kind: InputKind;
  /** Entry path inside the ZIP at `abs` (src/read/zip.ts); `zip` locates its data (read with readInput). */
  entry?: string;
  zip?: ZipEntryRef;
  /**
   * The file's stat when it was discovered (a plain file): size above, [mtimeMs, ctimeMs, ino] here. The cache and the
   * build manifest compare these instead of a stat each of their own (two more per input, 20,000 at 10,000 EPDs).
   */
  stat?: [number, number, number];
}

/** An XML file of its own on disk (not a ZIP archive's entry): what can be read, or hashed, ahead of the cache. */
export const isPlainXml = (f: InputFile): boolean => f.kind === 'xml' && !f.zip && f.entry === undefined;

export interface Discovery {
  files: InputFile[];
  findings: Finding[];
  /** When discoverInputs started (ms since the epoch): the files' recorded stats were taken after it. */
  statAt?: number;
}

/**
 * Find input files in folders, single files and glob patterns. Symbolic links are followed only
 * when they stay inside the input folder; every file that is passed over gets a finding.
 */
export async function discoverInputs(inputs: readonly string[], cwd: string): Promise<Discovery> {
  if (inputs.length === 0) {
    throw new InputError('No inputs given', {
      hint: 'Name folders or files: po-node build data/ (or set "inputs" in po-node.config.json).',
    });
  }
  const statAt = Date.now();
  const byAbs = new Map<string, InputFile>();
  const findings: Finding[] = [];
  const show = (abs: string) => toDisplay(cwd, abs);

  for (const input of inputs) {
    const abs = resolve(cwd, input);
    let st: Stats | undefined;
    let statError: string | undefined;
    try {
      st = statSync(abs);
    } catch (e) {
      statError = (e as NodeJS.ErrnoException).code;
    }
    if (st?.isFile()) {
      byAbs.set(abs, { path: show(abs), abs, size: st.size, kind: kindOf(abs), stat: statOf(st) });
      continue;
    }
    if (st && !st.isDirectory()) {
      // A FIFO, socket or device named as an input: reading could block or never end.
      findings.push(finding('input-unreadable', { case: 'special', kind: specialKind(st) }, { file: show(abs) }));
      continue;
    }
    if (!st && statError !== 'ENOENT' && statError !== 'ENOTDIR' && !(await glob()).isDynamicPattern(toPosix(relative(cwd, abs)))) {
      findings.push(finding('input-unreadable', { case: 'input', code: statError ?? 'error' }, { file: show(abs) }));
      continue;
    }
    if (st?.isDirectory()) {
      walkFolder(abs, { root: realpathSync(abs), show, byAbs, findings });
      continue;
    }
    const pattern = toPosix(relative(cwd, abs));
    const { globby, isDynamicPattern } = await glob();
    if (!isDynamicPattern(pattern)) {
      throw new InputError(`Input not found: ${show(abs)}`, {
        hint: 'Check the path; folders, files and glob patterns (quoted) are accepted.',
      });
    }
    const entries = await globby(pattern, {
      cwd,
      absolute: true,
      onlyFiles: false,
      objectMode: true,
      followSymbolicLinks: false,
      dot: false,
      suppressErrors: true,
    });
    if (entries.length === 0) throw new InputError(`No files match ${show(abs)}`);
    for (const entry of entries) {
      const file = resolve(entry.path);
      if (entry.dirent.isDirectory()) continue;
      addEntry(file, entry.dirent, { root: cwd, show, byAbs, findings });
    }
  }
  const files = [...byAbs.values()].sort((a, b) => cmp(a.path, b.path));
  for (const f of files) {
    if (f.kind === 'other' && f.entry === undefined) {
      findings.push(finding('input-not-xml', {}, { file: f.path }));
    }
  }
  return { files, findings, statAt };
}

/**
 * Every file below a folder. Our own walk (not globby, which passed over unreadable folders in silence and lost
 * names with backslashes): names are read as bytes, and whatever is not read gets a finding with the reason.
 */
interface Walk {
  /** Symbolic links are followed only to files inside this folder. */
  root: string;
  show: (abs: string) => string;
  byAbs: Map<string, InputFile>;
  findings: Finding[];
}

function walkFolder(dir: string, w: Walk): void {
  const { show, findings } = w;
  let names: Dirent<Buffer>[];
  try {
    names = readdirSync(dir, { withFileTypes: true, encoding: 'buffer' });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    findings.push(finding('input-unreadable', { case: 'folder', code }, { file: show(dir) }));
    return;
  }
  // A name from readdir is one segment (never `.`, `..` or with a separator): its path and display are the folder's
  // and the name joined as strings, not resolved again per file (10,000 files a folder).
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  const shown = show(dir);
  const shownPrefix = shown === '.' ? '' : `${shown}/`;
  const inDocs = isDocsFolder(dir);
  for (const d of names) {
    const name = utf8Name(d.name);
    if (name === undefined) {
      findings.push(finding('input-name-encoding', {}, { file: show(join(dir, escapedName(d.name))) }));
      continue;
    }
    const file = prefix + name;
    if (name.startsWith('.')) {
      findings.push(finding('input-hidden', { kind: d.isDirectory() ? 'folder' : 'file' }, { file: shownPrefix + name }));
      continue;
    }
    if (d.isDirectory()) walkFolder(file, w);
    else addEntry(file, d, w, shownPrefix + name, kindOfName(name, inDocs));
  }
}

/** One directory entry that is not a folder: a regular file, a symbolic link (followed only inside `root`) or a special file. */
function addEntry(
  file: string,
  d: { isFile(): boolean; isSymbolicLink(): boolean },
  w: Walk,
  shown = w.show(file),
  kind = kindOf(file),
): void {
  const { root, byAbs, findings } = w;
  if (d.isSymbolicLink()) {
    const target = safeRealpath(file);
    if (!target || !isInside(root, target)) {
      findings.push(finding('input-symlink', target ? { case: 'outside', target } : { case: 'dangling' }, { file: shown }));
      return;
    }
    const tst = statSync(target);
    if (!tst.isFile()) {
      const params = tst.isDirectory() ? ({ case: 'folder' } as const) : ({ case: 'special', kind: specialKind(tst) } as const);
      findings.push(finding('input-symlink', params, { file: shown }));
      return;
    }
    byAbs.set(file, { path: shown, abs: file, size: tst.size, kind, stat: statOf(tst) });
    return;
  }
  if (!d.isFile()) {
    // FIFOs, sockets, devices: reading could block or never end; say so instead of dropping the file silently.
    findings.push(finding('input-unreadable', { case: 'special-entry' }, { file: shown }));
    return;
  }
  let st: Stats | undefined;
  try {
    st = statSync(file);
  } catch {
    // Reported when the file is read.
  }
  byAbs.set(file, { path: shown, abs: file, size: st?.size ?? 0, kind, ...(st ? { stat: statOf(st) } : {}) });
}

const statOf = (st: Stats): [number, number, number] => [st.mtimeMs, st.ctimeMs, st.ino];

function specialKind(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'a special file';
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function utf8Name(raw: Buffer): string | undefined {
  try {
    return strictUtf8.decode(raw);
  } catch {
    return undefined;
  }
}

/** A name that is not UTF-8, for reports: ASCII as it is, other bytes as \xNN. */
function escapedName(raw: Buffer): string {
  return raw.toString('latin1').replace(/[\x80-\xff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Files in an ILCD export's external_docs folder are documents (PDF, images), not datasets. */
function kindOf(abs: string): InputKind {
  return kindOfName(abs.slice(abs.lastIndexOf(sep) + 1), isDocsFolder(abs.slice(0, abs.lastIndexOf(sep))));
}

const isDocsFolder = (dir: string): boolean => dir.split(sep).includes('external_docs');

function kindOfName(name: string, inDocs: boolean): InputKind {
  if (inDocs || name === 'external_docs') return 'document';
  if (/\.zip$/i.test(name)) return 'zip';
  return /\.xml$/i.test(name) ? 'xml' : 'other';
}

function safeRealpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** How a file (or ZIP entry) is named in messages: `data.zip!ILCD/processes/x.xml`. */
export function inputLabel(f: Pick<InputFile, 'path' | 'entry'>): string {
  return f.entry !== undefined ? `${f.path}!${f.entry}` : f.path;
}

/** `file` and, for ZIP entries, `entry` of a finding about this input. */
export function findingAt(f: Pick<InputFile, 'path' | 'entry'>): { file: string; entry?: string } {
  return f.entry !== undefined ? { file: f.path, entry: f.entry } : { file: f.path };
}

/** One path segment fit as a served file name (spaces and non-ASCII allowed): no separators, control characters or dot names. */
export function isSafeDocumentName(name: string): boolean {
  // eslint-disable-next-line no-control-regex
  return name.length > 0 && name.length <= 200 && !/[/\\\u0000-\u001f\u007f]/.test(name) && !name.startsWith('.') && name.trim() === name;
}
