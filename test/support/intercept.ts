// A client whose calls of one method pass through the test first (to hold, slow down or check them).
/**
 * `inner` with `method` wrapped: `around(args, call)` runs in place of each call of it and decides
 * when (and whether) `call()` runs; the other methods are `inner`'s own.
 */
export function intercepting<C extends object>(inner: C, method: string, around: (args: unknown[], call: () => Promise<unknown>) => Promise<unknown>): C {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      const bound = (v as (...a: unknown[]) => unknown).bind(target);
      if (prop !== method) return bound;
      return (...args: unknown[]) => around(args, () => Promise.resolve(bound(...args)));
    },
  });
}
