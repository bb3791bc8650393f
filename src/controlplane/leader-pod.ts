// The leader's Pod label. With leader election only the leader's controllers run, so a runtime
// watcher event that reaches a follower's listener waits for the leader's next full check of that
// runtime. Behind one Service (`klm-controller-manager-events`), the leader labels its own Pod and
// the Service selects the label: events reach the leader only.
//
// Level-based: one loop makes the label follow `isLeader()`, checking every retry period and at once
// when leadership changes, so a failed write (the KCP unreachable just when the Lease was lost) is
// retried and two writes never race. A replica starts by removing the label (a restarted container
// keeps its Pod and labels) and removes it when it stops.
import type { Client } from '../runtime/client/interface.js';
import { isNotFound } from '../runtime/client/errors.js';
import type { Logger } from '../runtime/log.js';

/** Label on the leader's Pod (value `true`); the events Service in deploy/manifests selects it. */
export const LEADER_POD_LABEL = 'kcp-controllers/leader';

const POD = { apiVersion: 'v1', kind: 'Pod' };

export interface LeaderPod {
  namespace: string;
  name: string;
}

export class LeaderPodLabel {
  /** What the Pod is known to carry: true (labelled), false (not), undefined (not known yet). */
  private confirmed: boolean | undefined;
  private wake: (() => void) | undefined;
  /** A change arrived while the loop was writing: it looks again without sleeping. */
  private pending = false;

  constructor(
    private readonly kcp: Client,
    private readonly pod: LeaderPod,
    private readonly isLeader: () => boolean,
    private readonly log: Logger,
    private readonly retryMs = 2_000,
  ) {}

  /** Leadership changed: look now rather than at the next period. */
  changed(): void {
    this.pending = true;
    this.wake?.();
  }

  /** Follows leadership until `signal` aborts, then removes the label (one attempt, bounded). */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      this.pending = false;
      await this.follow(this.isLeader(), AbortSignal.timeout(Math.max(2 * this.retryMs, 5_000)));
      if (this.pending || signal.aborted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.retryMs);
        function done(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          resolve();
        }
        this.wake = done;
        signal.addEventListener('abort', done, { once: true });
      });
      this.wake = undefined;
    }
    if (this.confirmed !== false) await this.follow(false, AbortSignal.timeout(5_000));
  }

  /** One write towards `leading`, bounded by `signal` (a KCP that hangs must not hold the loop or the stop). */
  private async follow(leading: boolean, signal: AbortSignal): Promise<void> {
    if (this.confirmed === leading) return;
    try {
      await this.kcp.patch(POD, this.pod, 'merge', { metadata: { labels: { [LEADER_POD_LABEL]: leading ? 'true' : null } } }, { signal });
      this.log.info(leading ? 'labelled this pod as the leader' : 'this pod carries no leader label', { pod: this.pod.name, label: LEADER_POD_LABEL });
      this.confirmed = leading;
    } catch (e) {
      if (isNotFound(e)) {
        this.log.warn('this pod is not in the KCP: the leader label cannot be set (POD_NAME, POD_NAMESPACE?)', { pod: `${this.pod.namespace}/${this.pod.name}` });
        this.confirmed = leading;
        return;
      }
      this.log.error(leading ? 'labelling this pod as the leader failed; retrying' : 'removing the leader label from this pod failed; retrying', { pod: this.pod.name, error: e });
    }
  }
}
