import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { OutputError } from '../errors.js';
import { isInside, toDisplay } from '../util/paths.js';

/**
 * `--report <file>`: where the full JSON report goes. Refused inside the folders a build swaps in (the site, the host
 * configs): it would be published, then deleted by the next build. Checked before any input is read.
 */
export function reportPath(file: string, cwd: string, outputs: readonly string[]): string {
  const abs = resolve(cwd, file);
  for (const out of outputs) {
    if (isInside(out, abs)) {
      throw new OutputError(`--report ${file} is inside the output folder ${toDisplay(cwd, out)}/, which a build replaces.`, {
        hint: 'Write the report next to the site, e.g. --report build-report.json.',
      });
    }
  }
  return abs;
}

/** Write the report atomically: a reader never sees half a file. */
export function writeReport(abs: string, text: string, cwd: string): void {
  const tmp = `${abs}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(tmp, text);
    renameSync(tmp, abs);
  } catch (e) {
    rmSync(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code ?? String(e);
    throw new OutputError(`Cannot write the report ${toDisplay(cwd, abs)} (${code}).`, {
      hint: 'Check that its folder is writable, or choose another --report path.',
      cause: e,
    });
  }
}
