import { realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { globby, isDynamicPattern } from 'globby';
import { InputError } from '../errors.js';
import type { Finding } from '../findings.js';
import { cmp } from '../findings.js';
import type { ZipEntryRef } from './zip.js';

export type InputKind = 'xml' | 'document' | 'zip' | 'other';

export interface InputFile {
  /** Path as shown to people: relative to the working directory, `/` separators. */
  path: string;
  abs: string;
  size: number;
  kind: InputKind;
  /** Entry path inside the ZIP at `abs` (src/read/zip.ts); `zip` locates its data (read with readInput). */
  entry?: string;
  zip?: ZipEntryRef;
}

export interface Discovery {
  files: InputFile[];
  findings: Finding[];
}

/**
 * Find input files in folders, single files and glob patterns. Symbolic links are followed only
 * when they stay inside the input folder; every file that is passed over gets a finding.
 */
export async function discoverInputs(inputs: readonly string[], cwd: string): Promise<Discovery> {
  if (inputs.length === 0) {
    throw new InputError('No inputs given', { hint: 'Name folders or files: po-node build data/ (or set "inputs" in po-node.config.json).' });
  }
  const byAbs = new Map<string, InputFile>();
  const findings: Finding[] = [];
  const show = (abs: string) => toDisplay(cwd, abs);

  for (const input of inputs) {
    const abs = resolve(cwd, input);
    let st: Stats | undefined;
    try {
      st = statSync(abs);
    } catch {
      st = undefined;
    }
    if (st?.isFile()) {
      byAbs.set(abs, { path: show(abs), abs, size: st.size, kind: kindOf(abs) });
      continue;
    }
    const isDir = st?.isDirectory() ?? false;
    const pattern = isDir ? '**/*' : toPosix(relative(cwd, abs));
    if (!isDir && !isDynamicPattern(pattern)) {
      throw new InputError(`Input not found: ${show(abs)}`, { hint: 'Check the path; folders, files and glob patterns (quoted) are accepted.' });
    }
    const root = isDir ? realpathSync(abs) : cwd;
    const entries = await globby(pattern, {
      cwd: isDir ? abs : cwd,
      absolute: true,
      onlyFiles: false,
      objectMode: true,
      followSymbolicLinks: false,
      dot: false,
      suppressErrors: true,
    });
    if (entries.length === 0 && !isDir) throw new InputError(`No files match ${show(abs)}`);
    for (const entry of entries) {
      const file = resolve(entry.path);
      if (entry.dirent.isDirectory()) continue;
      if (entry.dirent.isSymbolicLink()) {
        const target = safeRealpath(file);
        if (!target || !isInside(root, target)) {
          findings.push({
            ruleId: 'input-symlink',
            severity: 'warning',
            file: show(file),
            message: target
              ? `Symbolic link not followed: it points outside the input folder (to ${target}).`
              : 'Symbolic link not followed: its target does not exist.',
          });
          continue;
        }
        const tst = statSync(target);
        if (!tst.isFile()) continue;
        byAbs.set(file, { path: show(file), abs: file, size: tst.size, kind: kindOf(file) });
        continue;
      }
      if (!entry.dirent.isFile()) {
        // FIFOs, sockets, devices: reading could block or never end; say so instead of dropping the file silently.
        findings.push({ ruleId: 'input-unreadable', severity: 'error', file: show(file), message: 'Not a regular file (a FIFO, socket or device); it was not read: replace it with the dataset file.' });
        continue;
      }
      let size = 0;
      try {
        size = statSync(file).size;
      } catch {
        // Reported when the file is read.
      }
      byAbs.set(file, { path: show(file), abs: file, size, kind: kindOf(file) });
    }
  }
  const files = [...byAbs.values()].sort((a, b) => cmp(a.path, b.path));
  for (const f of files) {
    if (f.kind === 'other' && f.entry === undefined) {
      findings.push({ ruleId: 'input-not-xml', severity: 'info', file: f.path, message: 'Skipped: not an XML file (only .xml datasets are read).' });
    }
  }
  return { files, findings };
}

/** Files in an ILCD export's external_docs folder are documents (PDF, images), not datasets. */
function kindOf(abs: string): InputKind {
  const parts = abs.split(sep);
  if (parts.includes('external_docs')) return 'document';
  if (/\.zip$/i.test(abs)) return 'zip';
  return /\.xml$/i.test(abs) ? 'xml' : 'other';
}

function safeRealpath(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

export function isInside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

export function toDisplay(cwd: string, abs: string): string {
  return toPosix(relative(cwd, abs)) || '.';
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
