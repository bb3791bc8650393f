// A Client that counts the calls made through it (one per API request, retries aside), so that a
// test can see how often the code under test asked the API server, and for what.
import type { Client } from '../../src/runtime/client/interface.js';

export interface CountingClient<C extends Client = Client> {
  client: C;
  /** Calls of a method (all methods when none), of a kind only when one is named. */
  count: (method?: string, kind?: string) => number;
  reset: () => void;
}

/** The kind a call is about: its first argument, a kind reference or an object. */
function kindOf(args: unknown[]): string | undefined {
  const first = args[0] as { kind?: unknown } | undefined;
  return typeof first?.kind === 'string' ? first.kind : undefined;
}

export function countingClient<C extends Client>(inner: C): CountingClient<C> {
  const byMethod = new Map<string, number>();
  const byMethodAndKind = new Map<string, number>();
  const counted = new Set(['get', 'list', 'create', 'update', 'updateStatus', 'patch', 'apply', 'delete', 'watch']);
  const client = new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop === 'string' && counted.has(prop) && typeof v === 'function') {
        return (...args: unknown[]) => {
          byMethod.set(prop, (byMethod.get(prop) ?? 0) + 1);
          const key = `${prop} ${kindOf(args) ?? ''}`;
          byMethodAndKind.set(key, (byMethodAndKind.get(key) ?? 0) + 1);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return {
    client,
    count: (method, kind) => {
      if (kind !== undefined) return byMethodAndKind.get(`${method ?? ''} ${kind}`) ?? 0;
      return method ? (byMethod.get(method) ?? 0) : [...byMethod.values()].reduce((a, b) => a + b, 0);
    },
    reset: () => {
      byMethod.clear();
      byMethodAndKind.clear();
    },
  };
}
