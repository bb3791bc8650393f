// Bounded concurrency: a list of calls, at most so many in flight at once.

/** Runs `fn` over `items` with at most `limit` calls in flight; rejects with the first error after all settled. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let firstError: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]);
      } catch (e) {
        firstError ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (firstError) throw firstError.error;
  return results;
}
