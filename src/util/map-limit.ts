// Bounded concurrency: a list of calls, at most so many in flight at once.

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; once all settled, rejects with the
 * error of the earliest item that failed (as a loop one after another would have met it first).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failed: { index: number; error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]);
      } catch (e) {
        if (!failed || i < failed.index) failed = { index: i, error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw failed.error;
  return results;
}
