// Forced garbage collection for tests that check what stays reachable (WeakRef.deref() after it),
// without running node with --expose-gc.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A macrotask: WeakRef targets created in a job stay alive until the job ends. */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Lets the current job end, then collects garbage (twice, for objects freed by finalization). */
export async function collectGarbage(): Promise<void> {
  await tick();
  gc();
  await tick();
  gc();
}
