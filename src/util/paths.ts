import { isAbsolute, relative, sep } from 'node:path';

/** Path helpers shared by reading, the cache, writing, serving and reports. */

/** `p` is `root` or lies under it (both absolute). */
export function isInside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

export function toPosix(p: string): string {
  return sep === '/' ? p : p.split(sep).join('/');
}

/** A path as messages show it: relative to the working directory, with forward slashes. */
export function toDisplay(cwd: string, abs: string): string {
  return toPosix(relative(cwd, abs)) || '.';
}
