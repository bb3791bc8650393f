// The runtime's view of its Kyma: namespace `kyma-system` and the Kyma `kyma-system/default`.
// Created from the KCP Kyma (its channel and modules seed it); from then on the runtime Kyma is the
// source of truth for both: runtime admins enable modules and switch the channel there, and the KCP
// Kyma's `spec.modules` and `spec.channel` follow it (upstream's ReplaceSpec).
// The KCP Kyma's status is mirrored into the runtime Kyma, which carries the watched-by label and
// the KCP Kyma's BTP account labels.
import { jsonEqual } from '../../kube/json.js';
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, LabelValues, Labels, Namespaces, type KymaObject, type KymaStatus } from '../../api/operator/index.js';
import type { Client } from '../../runtime/client/interface.js';
import { isAlreadyExists, isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import type { KubeObject } from '../../kube/object.js';
import { FIELD_MANAGER } from './crds.js';

export const REMOTE_KYMA_KEY = { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME };

/** Labels of `kyma-system` in the runtime (upstream's: managed-by `kyma`, istio injection, warden validation). */
const NAMESPACE_LABELS = { [Labels.ManagedBy]: LabelValues.Kyma, [Labels.IstioInjection]: LabelValues.Enabled, [Labels.Warden]: LabelValues.Enabled };

/**
 * Creates `kyma-system` in the runtime, or puts its labels back when one is missing or different: one
 * server-side apply (upstream's too), which the runtime answers without a write when nothing differs.
 */
export async function ensureRemoteNamespace(remote: Client, signal: AbortSignal): Promise<void> {
  const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: Namespaces.Remote, labels: NAMESPACE_LABELS } };
  await remote.apply(ns, { fieldManager: FIELD_MANAGER, force: true, signal });
}

/** KCP Kyma labels the runtime Kyma carries too (upstream propagates the BTP account labels). */
const PROPAGATED_LABELS = [Labels.GlobalAccountID, Labels.SubAccountID];

/** The labels the runtime Kyma must carry: watched-by and the KCP Kyma's BTP account labels. */
function remoteKymaLabels(kcpKyma: KymaObject): Record<string, string> {
  const labels: Record<string, string> = { [Labels.WatchedBy]: LabelValues.Kyma };
  for (const key of PROPAGATED_LABELS) {
    const value = kcpKyma.metadata.labels?.[key];
    if (value !== undefined) labels[key] = value;
  }
  return labels;
}

export interface RemoteKymaSync {
  remote: KymaObject;
  created: boolean;
}

/**
 * Ensures the runtime Kyma exists (seeded from the KCP Kyma's spec when created) and carries its
 * labels; returns it. `createFirst`: the runtime most likely has no Kyma yet (a new runtime), so the
 * create is tried before any read, which follows only when one exists.
 */
export async function syncRemoteKyma(remote: Client, kcpKyma: KymaObject, signal: AbortSignal, createFirst = false): Promise<RemoteKymaSync> {
  const seed: KymaObject = {
    apiVersion: Kyma.apiVersion,
    kind: Kyma.kind,
    metadata: { ...REMOTE_KYMA_KEY, labels: { [Labels.ManagedBy]: LabelValues.Kyma, ...remoteKymaLabels(kcpKyma) } },
    spec: { channel: kcpKyma.spec.channel, modules: kcpKyma.spec.modules ?? [] },
  };
  if (createFirst) {
    try {
      return { remote: await remote.create(seed, { fieldManager: FIELD_MANAGER, signal }), created: true };
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
    }
  }
  let current = await findObject<KymaObject>(remote, Kyma, REMOTE_KYMA_KEY, { signal });
  if (!current || current.metadata.deletionTimestamp) {
    if (current) throw new Error('the runtime Kyma is being deleted; waiting for it to go before re-creating it');
    return { remote: await remote.create(seed, { fieldManager: FIELD_MANAGER, signal }), created: true };
  }
  // The watched-by label selects the Kyma for the runtime watcher's webhook (Watcher klm-watcher).
  const labels = remoteKymaLabels(kcpKyma);
  const have = current.metadata.labels ?? {};
  const labelled = Object.entries(labels).every(([k, v]) => have[k] === v);
  if (!labelled) {
    current = await remote.update<KymaObject>({ ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...labels } } }, { fieldManager: FIELD_MANAGER, signal });
  }
  return { remote: current, created: false };
}

/** Writes the KCP Kyma's status into the runtime Kyma when it differs by value. */
export async function mirrorStatus(remote: Client, remoteKyma: KymaObject, status: KymaStatus, signal: AbortSignal): Promise<void> {
  if (jsonEqual(remoteKyma.status ?? {}, status)) return;
  await remote.patch(Kyma, REMOTE_KYMA_KEY, 'merge', { status }, { fieldManager: FIELD_MANAGER, subresource: 'status', signal });
}

/** Writes a status into the runtime Kyma unconditionally (the caller knows it differs from what was mirrored last). */
export async function writeRemoteStatus(remote: Client, status: KymaStatus, signal: AbortSignal): Promise<void> {
  await remote.patch(Kyma, REMOTE_KYMA_KEY, 'merge', { status }, { fieldManager: FIELD_MANAGER, subresource: 'status', signal });
}

/** Removes the runtime Kyma (finalizers stripped, so that nothing in the runtime can block it). */
export async function deleteRemoteKyma(remote: Client, signal: AbortSignal): Promise<void> {
  try {
    const current = await remote.get<KymaObject>(Kyma, REMOTE_KYMA_KEY, { signal });
    if ((current.metadata.finalizers ?? []).length > 0) await remote.patch(Kyma, REMOTE_KYMA_KEY, 'merge', { metadata: { finalizers: null } }, { signal });
    await remote.delete(Kyma, REMOTE_KYMA_KEY, { signal });
  } catch (e) {
    if (!isNotFound(e)) throw e;
  }
}
