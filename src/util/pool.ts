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

/**
 * For long synchronous loops on the main thread: a promise to await once `ms` of work have passed since the last
 * one (else undefined), so the event loop runs in between. Streamed work in the thread pool (the compression of the
 * lists, a round trip through the main thread per chunk) stalls for as long as the loop holds the thread.
 */
export function breather(ms = 4): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < ms) return undefined;
    return new Promise<void>((ok) =>
      setImmediate(() => {
        since = performance.now();
        ok();
      }),
    );
  };
}
