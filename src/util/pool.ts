/**
 * Run `fn` over `items`, `size` calls in flight. The first failure stops new work but waits for the calls in flight
 * before it is thrown: a caller that cleans up after the error (the writer removes its temporary folder) must not race
 * writes still landing in it (disk full left it behind).
 */
export async function pool<T>(items: readonly T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed: { error: unknown } | undefined;
  const worker = async () => {
    while (!failed && next < items.length) {
      try {
        await fn(items[next++]!);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  if (failed) throw failed.error;
}
