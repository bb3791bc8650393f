// Reading an object that may not be there: controllers branch on "absent" far more often than they
// treat NotFound as an error.
import { isNotFound } from './errors.js';
import type { Client } from './interface.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import type { ObjectKey } from '../../kube/keys.js';

/** The object, or undefined when the server answers NotFound; other errors are thrown. */
export async function findObject<T extends KubeObject = KubeObject>(client: Client, kind: KindRef, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T | undefined> {
  try {
    return await client.get<T>(kind, key, opts);
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}
