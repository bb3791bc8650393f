// The leader's Pod label. With leader election only the leader's controllers run, so a runtime
// watcher event that reaches a follower's listener waits for the leader's next full check of that
// runtime. Behind one Service (`klm-controller-manager-events`), the leader labels its own Pod and
// the Service selects the label: events reach the leader only. A replica removes the label from its
// Pod when it starts (a restarted container keeps its Pod and labels) and when leadership ends.
import type { Client } from '../runtime/client/interface.js';
import { isNotFound } from '../runtime/client/errors.js';
import type { Logger } from '../runtime/log.js';

/** Label on the leader's Pod (value `true`); the events Service in deploy/manifests selects it. */
export const LEADER_POD_LABEL = 'kcp-controllers/leader';

const POD = { apiVersion: 'v1', kind: 'Pod' };
const RETRY_MS = 2_000;

export interface LeaderPod {
  namespace: string;
  name: string;
}

/** Sets (true) or removes (false) the label on the Pod; a Pod that is not there is only logged. */
export async function labelLeaderPod(kcp: Client, pod: LeaderPod, leading: boolean, log: Logger, signal?: AbortSignal): Promise<void> {
  try {
    await kcp.patch(POD, pod, 'merge', { metadata: { labels: { [LEADER_POD_LABEL]: leading ? 'true' : null } } }, { signal });
    log.info(leading ? 'labelled this pod as the leader' : 'removed the leader label from this pod', { pod: pod.name, label: LEADER_POD_LABEL });
  } catch (e) {
    if (!isNotFound(e)) throw e;
    log.warn('this pod is not in the KCP: the leader label cannot be set (POD_NAME, POD_NAMESPACE?)', { pod: `${pod.namespace}/${pod.name}` });
  }
}

/** Labels the Pod as the leader, retrying every 2 s until it is done or leadership ends (`signal`). */
export async function labelWhileLeading(kcp: Client, pod: LeaderPod, log: Logger, signal: AbortSignal): Promise<void> {
  while (!signal.aborted) {
    try {
      await labelLeaderPod(kcp, pod, true, log, signal);
      return;
    } catch (e) {
      if (signal.aborted) return;
      log.error('labelling this pod as the leader failed; retrying', { pod: pod.name, error: e });
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
    }
  }
}
