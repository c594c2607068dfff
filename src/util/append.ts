/** `target.push(...items)` without the spread: a spread of 100,000+ items (findings, files) overflows the call stack. */
export function append<T>(target: T[], items: readonly T[]): T[] {
  for (const item of items) target.push(item);
  return target;
}
