// Waiting, abortably: the one sleep of the project. A leaf: imports nothing, so every layer (the API
// server, the runtime, the controllers, the CLI, tests) may use it. The timer never outlives the
// wait: it is cleared when the signal aborts, so nothing keeps the process alive after a stop.

/** Waits `ms`. Rejects with the signal's reason as soon as `signal` aborts (at once if it already has). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Waits `ms`, or less when `signal` aborts: resolves either way, never rejects. For loops that look
 * at the signal themselves after the wait, and for timeouts raced against other work.
 */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, signal).catch(() => undefined);
}

/** Resolves when `signal` aborts (at once if it already has). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * `p`, or a rejection with the signal's reason as soon as `signal` aborts (p itself goes on). Use it
 * rather than `Promise.race([p, untilAborted(signal)])` in a loop: every race adds a reaction to the
 * long-lived abort promise that keeps the race's result (an event, a response) reachable until the
 * signal aborts, so a loop of races holds everything it ever read. Here the abort listener is
 * removed as soon as `p` settles.
 */
export function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
