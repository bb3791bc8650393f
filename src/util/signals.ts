// Abort signals combined without a leak. `AbortSignal.any([long, short])` registers the combined
// signal on `long` for good: Node 20 keeps a weak reference per call on every source signal and
// never drops it (about 56 bytes each), so a client that combines its lifetime with every request's
// signal grows by one entry per request for as long as it lives. A linked signal listens on its
// sources only until it is disposed.
import { setMaxListeners } from 'node:events';

export interface LinkedSignal {
  /** Aborts (with the first source's reason) when any source aborts. */
  readonly signal: AbortSignal;
  /** Stops listening on the sources (idempotent); call it when the work the signal guards is over. */
  dispose(): void;
}

const nothing = (): void => undefined;

/** A signal that aborts when any of `sources` does (undefined ones are skipped), until disposed. */
export function linkedSignal(...sources: (AbortSignal | undefined)[]): LinkedSignal {
  const present = sources.filter((s): s is AbortSignal => s !== undefined);
  if (present.length === 1) return { signal: present[0], dispose: nothing };
  const controller = new AbortController();
  const aborted = present.find((s) => s.aborted);
  if (aborted) {
    controller.abort(aborted.reason);
    return { signal: controller.signal, dispose: nothing };
  }
  const listeners = present.map((source) => {
    // A reconcile's signal guards many requests at once (a module's objects are applied side by
    // side), one listener per link until its request ends: not the leak Node warns of past 10.
    setMaxListeners(0, source);
    const onAbort = (): void => {
      dispose();
      controller.abort(source.reason);
    };
    source.addEventListener('abort', onAbort, { once: true });
    return { source, onAbort };
  });
  let disposed = false;
  const dispose = (): void => {
    if (disposed) return;
    disposed = true;
    for (const { source, onAbort } of listeners) source.removeEventListener('abort', onAbort);
  };
  return { signal: controller.signal, dispose };
}
