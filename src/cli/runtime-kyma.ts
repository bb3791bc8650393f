// The runtime's own Kyma `kyma-system/default`, edited as a runtime admin does (with the runtime's
// kubeconfig): after the runtime Kyma exists it is the source of truth for the modules and the
// channel, and the lifecycle manager carries its spec into the KCP Kyma. Used by `kcp module
// enable|disable` and `kcp runtime update --channel`.
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, type KymaObject, type KymaSpec, Namespaces } from '../api/operator/index.js';
import { type Client, clientFromKubeconfig, findObject, isConflict } from '../runtime/client/index.js';
import type { CliContext } from './connect.js';
import { runtimeKubeconfig, type RuntimeRecord } from './kubeconfig.js';
import { waitInContext } from './progress.js';

export const REMOTE_KYMA_KEY = { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME };

/** A client of the runtime cluster, from its kubeconfig Secret in the KCP. */
export async function runtimeClient(ctx: CliContext, record: RuntimeRecord): Promise<Client> {
  return clientFromKubeconfig(await runtimeKubeconfig(ctx, record), { retries: 2, requestTimeoutMs: 15_000 });
}

/** The runtime Kyma; with `waitMs`, waits for the lifecycle manager to create it. */
export async function remoteKyma(ctx: CliContext, remote: Client, record: RuntimeRecord, waitMs: number): Promise<KymaObject> {
  let found: KymaObject | undefined;
  await waitInContext(ctx, `the Kyma ${Namespaces.Remote}/${DEFAULT_REMOTE_KYMA_NAME} in runtime ${record.name}`, waitMs, async (signal) => {
    found = await findObject<KymaObject>(remote, Kyma, REMOTE_KYMA_KEY, { signal });
    if (found) return { status: 'runtime Kyma found', done: true, quiet: true };
    if (waitMs <= 0) {
      return { status: 'no runtime Kyma', quiet: true, failed: `runtime ${record.name} has no Kyma ${Namespaces.Remote}/${DEFAULT_REMOTE_KYMA_NAME} yet (the lifecycle manager creates it once the runtime is Ready; try again shortly, or use --wait)` };
    }
    return { status: `waiting for the lifecycle manager to create ${Namespaces.Remote}/${DEFAULT_REMOTE_KYMA_NAME} in runtime ${record.name}` };
  });
  if (!found) throw new Error('unreachable: the runtime Kyma wait ended without a Kyma');
  return found;
}

/**
 * Applies `edit` to the runtime Kyma's spec (undefined: nothing to change), retrying on conflicts
 * with a fresh read; returns whether anything changed.
 */
export async function editRemoteKyma(remote: Client, kyma: KymaObject, edit: (spec: KymaSpec) => KymaSpec | undefined, signal?: AbortSignal): Promise<boolean> {
  let current = kyma;
  for (let attempt = 0; ; attempt++) {
    const next = edit({ ...current.spec, modules: [...(current.spec?.modules ?? [])] });
    if (!next) return false;
    try {
      await remote.update<KymaObject>({ ...current, spec: next }, { fieldManager: 'kcp-cli', signal });
      return true;
    } catch (e) {
      if (!isConflict(e) || attempt >= 4) throw e;
      current = await remote.get<KymaObject>(Kyma, REMOTE_KYMA_KEY, { signal });
    }
  }
}
