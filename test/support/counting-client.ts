// A Client that counts the calls made through it (one per API request, retries aside), so that a
// test can see how often the code under test asked the API server, and for what.
import type { Client } from '../../src/runtime/client/interface.js';

export interface CountingClient<C extends Client = Client> {
  client: C;
  count: (method?: string) => number;
  reset: () => void;
}

export function countingClient<C extends Client>(inner: C): CountingClient<C> {
  const byMethod = new Map<string, number>();
  const counted = new Set(['get', 'list', 'create', 'update', 'updateStatus', 'patch', 'apply', 'delete', 'watch']);
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop === 'string' && counted.has(prop) && typeof v === 'function') {
        return (...args: unknown[]) => {
          byMethod.set(prop, (byMethod.get(prop) ?? 0) + 1);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    client,
    count: (method) => (method ? (byMethod.get(method) ?? 0) : [...byMethod.values()].reduce((a, b) => a + b, 0)),
    reset: () => byMethod.clear(),
  };
}
