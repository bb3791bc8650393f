// The runtime watcher's runtime side, kept by the Kyma controller: the runtime's certificate (a KCP
// Secret `<kyma>-webhook-tls`, issued by the watcher CA), and in the runtime the Secret, Services,
// Deployment and ValidatingWebhookConfiguration `skr-webhook` (src/watcher/skr-objects.ts). The
// result is the Kyma's SKRWebhook condition, which names what is wrong when events cannot flow.
//
// Cost: the objects are applied when what they should be changes (a fingerprint per Kyma, kept in
// memory), when the webhook Deployment was deleted or edited in the runtime or its TLS Secret was
// deleted there, or every `resyncMs`; otherwise a reconcile reads the Deployment and the Secret.
import { canonicalJson } from '../../kube/json.js';
import { createHash } from 'node:crypto';
import { KymaConditionMessages, type KymaObject, type WatcherObject } from '../../api/operator/index.js';
import type { Store } from '../../runtime/cache/store.js';
import type { Client } from '../../runtime/client/interface.js';
import { isNotFound } from '../../runtime/client/errors.js';
import { findObject } from '../../runtime/client/find.js';
import type { KindRef, KubeObject } from '../../kube/object.js';
import { SECRET_KIND, type Secret } from '../../runtime/remote/secret.js';
import { certificateNotAfter, ensureRuntimeCertificate, renewalOverdue, runtimeIdentityIntact, runtimeIdOf, type CaState, type WatcherPkiSettings } from '../../watcher/certificates.js';
import { WatcherCertificateMetrics } from '../../watcher/metrics.js';
import type { Registry } from '../../runtime/metrics.js';
import { SKR_WEBHOOK_METRICS_SERVICE, SKR_WEBHOOK_NAME, SKR_WEBHOOK_NAMESPACE, SKR_WEBHOOK_NETWORK_POLICIES, SKR_WEBHOOK_TLS_SECRET, skrWebhookObjects } from '../../watcher/skr-objects.js';
import { type IgnoredWriters, webhookConfigurationFor } from '../../watcher/index.js';
import { FIELD_MANAGER } from './crds.js';

/** How often unchanged webhook objects are applied again: a fleet of 10,000 runtimes pays 6 writes each per period. */
export const DEFAULT_WEBHOOK_RESYNC_MS = 24 * 60 * 60_000;

const DEPLOYMENT: KindRef = { apiVersion: 'apps/v1', kind: 'Deployment' };
const VWC: KindRef = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' };
const SERVICE: KindRef = { apiVersion: 'v1', kind: 'Service' };
const NETWORK_POLICY: KindRef = { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy' };

export interface SkrWebhookOptions {
  kcp: Client;
  /** KCP namespace of Kymas, Watchers and certificate Secrets. */
  namespace: string;
  image: string;
  command?: string[];
  /** The KCP listener's address as runtimes reach it. */
  kcpAddress: string;
  /** The lifecycle manager's field managers in runtimes, and the event managers its webhook sends no event for their writes to. */
  ignoredWrites?: IgnoredWriters;
  /** The current watcher CA (undefined until loaded). */
  ca: () => CaState | undefined;
  pki: WatcherPkiSettings;
  watchers: Store<WatcherObject>;
  /** Informer store of the `<kyma>-webhook-tls` Secrets. */
  certificates: Store<Secret>;
  /** When the listener last accepted an event from a runtime (Date.now()). */
  lastEventAt: (runtimeId: string) => number | undefined;
  /**
   * Re-apply unchanged objects this often (default 24 h), repairing edits in the runtime that reading
   * the Deployment at each full runtime check does not show (its own edits and deletion it does).
   */
  resyncMs?: number;
  /** How long the webhook may be unavailable before the Kyma is Error (default 60 s). */
  unavailableGraceMs?: number;
  /** How long after installing a runtime may change without an event before it is reported (default 60 s). */
  silenceGraceMs?: number;
  now?: () => number;
  /** Where lifecycle_mgr_self_signed_cert_not_renew is kept (none: not recorded). */
  registry?: Registry;
}

export interface WebhookCondition {
  status: 'True' | 'False';
  message: string;
  /** The Kyma must be Error (the webhook cannot run), not just not Ready. */
  error: boolean;
}

interface Installed {
  fingerprint: string;
  appliedAt: number;
  installedAt: number;
  /** Generation of the runtime Kyma when the webhook was installed by this process. */
  generationAtInstall: number;
  /** metadata.generation of the webhook Deployment as this process last applied it. */
  deploymentGeneration?: number;
  /** metadata.generation of the ValidatingWebhookConfiguration as this process last applied it. */
  configurationGeneration?: number;
  /** When an edit of the webhook configuration in the runtime was last reported in the condition. */
  editReportedAt?: number;
  unavailableSince?: number;
}

function isAvailable(deployment: KubeObject | undefined): boolean {
  return ((deployment?.status as { availableReplicas?: number } | undefined)?.availableReplicas ?? 0) >= 1;
}

function secretText(secret: Secret, key: string): string {
  const v = secret.data?.[key];
  return v ? Buffer.from(v, 'base64').toString('utf8') : '';
}

export class SkrWebhookInstaller {
  private readonly installed = new Map<string, Installed>();
  private readonly now: () => number;
  private readonly metrics: WatcherCertificateMetrics | undefined;

  constructor(private readonly opts: SkrWebhookOptions) {
    this.now = opts.now ?? Date.now;
    this.metrics = opts.registry ? new WatcherCertificateMetrics(opts.registry) : undefined;
  }

  /** Brings the runtime's webhook to what it should be; returns the SKRWebhook condition. */
  async sync(kyma: KymaObject, remote: Client, remoteKyma: KymaObject, signal: AbortSignal): Promise<WebhookCondition> {
    const name = kyma.metadata.name ?? '';
    const ca = this.opts.ca();
    if (!ca) return { status: 'False', message: `${KymaConditionMessages.WebhookOutOfSync}: the watcher CA is not loaded yet`, error: false };
    const stored = this.opts.certificates.get(`${this.opts.namespace}/${name}-webhook-tls`);
    const runtimeId = runtimeIdOf(kyma);
    let secret: Secret;
    /** Why the certificate could not be issued or renewed, when the stored one is used instead. */
    let renewalFailure: string | undefined;
    try {
      ({ secret } = await ensureRuntimeCertificate(this.opts.kcp, kyma, ca, this.opts.pki, stored, signal));
    } catch (e) {
      // The runtime keeps working with the certificate it has until that expires (the condition says
      // so), but only its own intact identity is kept: nothing broken is pushed into the runtime.
      if (signal.aborted || !runtimeIdentityIntact(stored, ca, runtimeId)) {
        // The renewal could not be written: what the runtime has is what the metric judges.
        this.metrics?.certificateRenewal(name, renewalOverdue(stored && secretText(stored, 'tls.crt'), this.opts.pki));
        throw e;
      }
      secret = stored as Secret;
      renewalFailure = e instanceof Error ? e.message : String(e);
    }
    this.metrics?.certificateRenewal(name, renewalOverdue(secretText(secret, 'tls.crt'), this.opts.pki));
    const tls = { caPem: secretText(secret, 'ca.crt'), certPem: secretText(secret, 'tls.crt'), keyPem: secretText(secret, 'tls.key') };
    const watchers = this.opts.watchers.list({ namespace: this.opts.namespace });
    const objects = [
      ...skrWebhookObjects({ image: this.opts.image, command: this.opts.command, kcpAddress: this.opts.kcpAddress, tls, ignoredWrites: this.opts.ignoredWrites }),
      webhookConfigurationFor(watchers, ca.trustedPem, this.opts.ignoredWrites) as unknown as KubeObject,
    ];
    // Canonical text: the webhook configuration carries Watcher fields in the key order the server sent them.
    const fingerprint = createHash('sha256').update(canonicalJson(objects)).digest('hex');
    const now = this.now();
    const generation = remoteKyma.metadata.generation ?? 0;
    let state = this.installed.get(name);
    let deployment: KubeObject | undefined;
    let secretPresent = true;
    /** The webhook configuration was deleted or its webhooks edited in the runtime since this process applied it. */
    let configuration: 'missing' | 'edited' | undefined;
    const resyncMs = this.opts.resyncMs ?? DEFAULT_WEBHOOK_RESYNC_MS;
    const due = !state || state.fingerprint !== fingerprint || now - state.appliedAt >= resyncMs;
    if (state) {
      // What this process installed is looked at on every check, also one that applies everything
      // anyway (a renewed certificate, a Watcher change, the resync): a configuration gone meanwhile
      // must be reported, not just put back.
      const [live, rest] = await Promise.all([findObject(remote, VWC, { name: SKR_WEBHOOK_NAME }, { signal }), due ? undefined : Promise.all([this.readDeployment(remote, signal), this.secretPresent(remote, signal)])]);
      if (rest) [deployment, secretPresent] = rest;
      if (!live) configuration = 'missing';
      else if (live.metadata.generation !== state.configurationGeneration) configuration = 'edited';
    }
    // A webhook Deployment deleted or edited in the runtime (scaled down, say), its TLS Secret deleted
    // there, or the webhook configuration deleted or edited, is put back now, not at the next resync:
    // a generation moved past the one this process applied, or an object is gone.
    if (due || !deployment || !secretPresent || configuration || deployment.metadata.generation !== state?.deploymentGeneration) {
      // The webhook configuration goes last: the webhook it calls exists before any call. During a CA
      // rotation it goes first: its bundle then holds both CAs and trusts the serving certificate the
      // webhook has as well as the one the Secret brings. After the Secret, an admission call on a new
      // connection in between fails verification and, failing open (Ignore), sends no event. (A first
      // install during a rotation then has calls fail open until the webhook runs: no event is lost,
      // as there was no webhook before.)
      const order = ca.rotating ? [objects[objects.length - 1], ...objects.slice(0, -1)] : objects;
      let configurationGeneration: number | undefined;
      for (const o of order) {
        const applied = await remote.apply(o, { fieldManager: FIELD_MANAGER, force: true, signal });
        if (o.kind === 'Deployment') deployment = applied;
        if (o.kind === VWC.kind) configurationGeneration = applied.metadata.generation;
      }
      state = {
        fingerprint,
        appliedAt: now,
        installedAt: state?.installedAt ?? now,
        generationAtInstall: state?.generationAtInstall ?? generation,
        deploymentGeneration: deployment?.metadata.generation,
        configurationGeneration,
        unavailableSince: state?.unavailableSince,
        editReportedAt: state?.editReportedAt,
      };
      this.installed.set(name, state);
    }
    if (!state) throw new Error('unreachable: webhook state missing after apply');

    const problems: string[] = [];
    let error = false;
    // A configuration deleted or edited: the runtime may not have called the webhook as it should for
    // a while. The condition leaves True for this check, so that its next transition to True tells the
    // Manifests to read their objects back. An edit is reported once per resync interval, not on every
    // check: another tool in the runtime that keeps changing the webhooks would otherwise keep the
    // Kyma from Ready, and each report costs every Manifest of the runtime a read-back.
    const reportEdit = configuration === 'edited' && !(state.editReportedAt !== undefined && now - state.editReportedAt < resyncMs);
    if (reportEdit) state.editReportedAt = now;
    if (configuration === 'missing' || reportEdit) problems.push(`the webhook configuration ${SKR_WEBHOOK_NAME} was ${configuration === 'missing' ? 'deleted' : 'changed'} in the runtime and is put back: changes made there meanwhile may not have been reported`);
    const available = isAvailable(deployment);
    if (!available) {
      state.unavailableSince ??= now;
      const waited = now - state.unavailableSince;
      problems.push(`the skr-webhook Deployment in the runtime has no available replica (for ${Math.round(waited / 1000)} s)`);
      error = waited >= (this.opts.unavailableGraceMs ?? 60_000);
    } else state.unavailableSince = undefined;
    const notAfter = certificateNotAfter(tls.certPem);
    const failed = renewalFailure === undefined ? '' : `: renewing it failed: ${renewalFailure}`;
    if (notAfter) {
      const left = notAfter.getTime() - now;
      if (left <= 0) {
        problems.push(`the runtime's watcher certificate expired at ${notAfter.toISOString()}${failed}`);
        error = true;
      } else if (renewalOverdue(tls.certPem, this.opts.pki) || (renewalFailure !== undefined && left <= this.opts.pki.certRenewBeforeMs)) {
        problems.push(`the runtime's watcher certificate expires at ${notAfter.toISOString()} and was not renewed${failed}`);
      } else if (renewalFailure !== undefined) {
        // Not due for renewal: what failed was re-issuing it for another reason or updating the Secret.
        problems.push(`the runtime's watcher certificate Secret could not be updated: ${renewalFailure}`);
      }
    }
    if (available && this.opts.lastEventAt(runtimeId) === undefined && generation > state.generationAtInstall && now - state.installedAt >= (this.opts.silenceGraceMs ?? 60_000)) {
      problems.push(
        `no event received from the runtime since the webhook was installed, although its Kyma changed (generation ${state.generationAtInstall} -> ${generation}): check the skr-webhook logs and that the runtime reaches ${this.opts.kcpAddress}`,
      );
    }
    if (problems.length === 0) return { status: 'True', message: KymaConditionMessages.WebhookSynced, error: false };
    return { status: 'False', message: `${KymaConditionMessages.WebhookOutOfSync}: ${problems.join('; ')}`, error };
  }

  /** Removes the webhook from a runtime (the configuration first, so nothing calls a missing webhook). */
  async remove(remote: Client, kymaName: string, signal: AbortSignal): Promise<void> {
    this.installed.delete(kymaName);
    this.metrics?.forget(kymaName);
    const namespace = SKR_WEBHOOK_NAMESPACE;
    const targets: { ref: KindRef; namespace?: string; name: string }[] = [
      { ref: VWC, name: SKR_WEBHOOK_NAME },
      { ref: DEPLOYMENT, namespace, name: SKR_WEBHOOK_NAME },
      { ref: SERVICE, namespace, name: SKR_WEBHOOK_NAME },
      { ref: SERVICE, namespace, name: SKR_WEBHOOK_METRICS_SERVICE },
      { ref: SECRET_KIND, namespace, name: SKR_WEBHOOK_TLS_SECRET },
      ...Object.values(SKR_WEBHOOK_NETWORK_POLICIES).map((name) => ({ ref: NETWORK_POLICY, namespace, name })),
    ];
    for (const t of targets) {
      try {
        await remote.delete(t.ref, { namespace: t.namespace, name: t.name }, { signal });
      } catch (e) {
        if (!isNotFound(e)) throw e;
      }
    }
  }

  /** Forgets what this process installed for a Kyma that is gone. */
  forget(kymaName: string): void {
    this.installed.delete(kymaName);
    this.metrics?.forget(kymaName);
  }

  private async secretPresent(remote: Client, signal: AbortSignal): Promise<boolean> {
    return (await findObject(remote, SECRET_KIND, { namespace: SKR_WEBHOOK_NAMESPACE, name: SKR_WEBHOOK_TLS_SECRET }, { signal })) !== undefined;
  }

  private readDeployment(remote: Client, signal: AbortSignal): Promise<KubeObject | undefined> {
    return findObject(remote, DEPLOYMENT, { namespace: SKR_WEBHOOK_NAMESPACE, name: SKR_WEBHOOK_NAME }, { signal });
  }
}
