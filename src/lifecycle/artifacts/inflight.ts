// De-duplicates concurrent work by key: callers of the same key share one run. The run has its own
// AbortSignal, aborted only when every caller waiting on it has given up; a caller that aborts is
// released at once.

interface Run<T> {
  promise: Promise<T>;
  controller: AbortController;
  waiters: number;
}

export class InFlight<T> {
  private readonly runs = new Map<string, Run<T>>();

  do(key: string, work: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let run = this.runs.get(key);
    if (!run) {
      const controller = new AbortController();
      const created: Run<T> = { controller, waiters: 0, promise: Promise.resolve() as Promise<T> };
      created.promise = work(controller.signal).finally(() => {
        if (this.runs.get(key) === created) this.runs.delete(key);
      });
      // Waiters observe the outcome; this keeps an abandoned run from being an unhandled rejection.
      created.promise.catch(() => undefined);
      this.runs.set(key, created);
      run = created;
    }
    return this.wait(key, run, signal);
  }

  get pending(): number {
    return this.runs.size;
  }

  private wait(key: string, run: Run<T>, signal?: AbortSignal): Promise<T> {
    run.waiters++;
    if (!signal) return run.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        run.waiters--;
        if (run.waiters === 0) {
          run.controller.abort(abortReason(signal));
          if (this.runs.get(key) === run) this.runs.delete(key);
        }
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      run.promise.then(
        (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(e instanceof Error ? e : new Error(String(e)));
        },
      );
    });
  }
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('the operation was aborted', 'AbortError');
}
