// Validating admission webhooks: ValidatingWebhookConfiguration objects of a cluster are matched
// against each write and called with an AdmissionReview v1 over HTTPS, as kube-apiserver does.
// A webhook is reached by `clientConfig.url`, or by `clientConfig.service` through the embedder's
// ServiceResolver (the embedded server has no pods behind its services).
import type { LogicalCluster, UserInfo } from './cluster.js';
import { forbidden, StatusError } from './errors.js';
import { newUid } from './objects.js';
import { BUILTIN_TYPES, type ResourceType } from './resources.js';
import { labelSelectorFromObject, matchesLabels } from '../kube/labels.js';
import { isPlainObject, sortKeys } from '../kube/json.js';
import type { ObjectWithMeta } from '../kube/object.js';
import type { StoredObject } from './store.js';
import { type ServiceResolver, type WebhookClientConfig, WebhookClient, type WebhookClientStats, webhookTarget } from './webhook-client.js';
import { type Bindings, type Compiled, compileMatchConditions, evaluateMatchConditions, type MatchCondition } from './match-conditions.js';

export type { ResolvedService, ServiceResolver } from './webhook-client.js';

export interface AdmissionAttributes {
  type: ResourceType;
  /** The kind of `object` when it is not the type's own (a subresource's, e.g. autoscaling/v1 Scale). */
  kind?: { group: string; version: string; kind: string };
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  object: ObjectWithMeta | undefined;
  oldObject: ObjectWithMeta | undefined;
  namespace: string;
  name: string;
  subresource: string;
  dryRun: boolean;
  user: UserInfo | undefined;
  fieldManager?: string;
  deleteOptions?: { propagationPolicy?: string; gracePeriodSeconds?: number; preconditions?: unknown; orphanDependents?: boolean };
}

export interface AdmissionStats extends WebhookClientStats {
  conditionsEvaluated: number;
  skippedByConditions: number;
}

export interface Admitter {
  admit(cluster: LogicalCluster, attrs: AdmissionAttributes): Promise<void>;
}

interface Rule {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

interface Webhook {
  name: string;
  clientConfig?: WebhookClientConfig;
  rules?: Rule[];
  failurePolicy?: string;
  namespaceSelector?: unknown;
  objectSelector?: unknown;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
}

const NAMESPACE = BUILTIN_TYPES.find((t) => t.kind === 'Namespace')!;

function matchesList(list: string[] | undefined, value: string): boolean {
  return (list ?? []).some((v) => v === '*' || v === value);
}

function ruleMatches(rule: Rule, a: AdmissionAttributes): boolean {
  if (!matchesList(rule.operations, a.operation)) return false;
  if (!matchesList(rule.apiGroups, a.type.group)) return false;
  if (!matchesList(rule.apiVersions, a.type.version)) return false;
  const resource = a.subresource ? `${a.type.resource}/${a.subresource}` : a.type.resource;
  const resOk = (rule.resources ?? []).some((r) => {
    if (r === '*') return !a.subresource;
    if (r === '*/*') return true;
    if (r.startsWith('*/')) return a.subresource === r.slice(2);
    if (r.endsWith('/*')) return r.slice(0, -2) === a.type.resource;
    return r === resource;
  });
  if (!resOk) return false;
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && !a.type.namespaced) return false;
  if (scope === 'Cluster' && a.type.namespaced) return false;
  return true;
}

/** Parsed selectors, per selector object of a parsed configuration (below). */
const parsedSelectors = new WeakMap<object, ReturnType<typeof labelSelectorFromObject>>();

function selectorMatches(selector: unknown, labels: Record<string, string> | undefined): boolean {
  if (selector === null || typeof selector !== 'object') return true;
  let sel = parsedSelectors.get(selector);
  if (sel === undefined && !parsedSelectors.has(selector)) {
    sel = labelSelectorFromObject(selector);
    parsedSelectors.set(selector, sel);
  }
  if (!sel) return true;
  return matchesLabels(sel, labels ?? {});
}

/**
 * The webhooks of a stored configuration, parsed once per stored version: every write in a cluster
 * with webhooks looks at them, and a configuration (with its CA bundles) is kilobytes of JSON.
 * Treated as read-only.
 */
const parsedConfigs = new WeakMap<StoredObject, readonly Webhook[]>();

function webhooksOf(stored: StoredObject): readonly Webhook[] {
  let webhooks = parsedConfigs.get(stored);
  if (!webhooks) {
    webhooks = ((JSON.parse(stored.json) as ObjectWithMeta).webhooks as Webhook[] | undefined) ?? [];
    parsedConfigs.set(stored, webhooks);
  }
  return webhooks;
}

/** Compiled matchConditions, per webhook of a parsed configuration (compiled on first use). */
const compiledConditions = new WeakMap<Webhook, Compiled[]>();

function conditionsOf(wh: Webhook): Compiled[] {
  let compiled = compiledConditions.get(wh);
  if (!compiled) {
    compiled = compileMatchConditions(Array.isArray(wh.matchConditions) ? wh.matchConditions : []);
    compiledConditions.set(wh, compiled);
  }
  return compiled;
}

export class WebhookAdmitter implements Admitter {
  /** Where `clientConfig.service` references are served; without one they fail as missing services. */
  serviceResolver: ServiceResolver | undefined;
  private readonly client = new WebhookClient();

  constructor(serviceResolver?: ServiceResolver) {
    this.serviceResolver = serviceResolver;
  }

  /** Webhooks whose matchConditions were evaluated, and of them those a false condition skipped. */
  private conditionsEvaluated = 0;
  private skippedByConditions = 0;

  /** Webhook calls and the connections they opened, and the calls matchConditions saved, since this admitter was made. */
  get stats(): AdmissionStats {
    return { ...this.client.stats, conditionsEvaluated: this.conditionsEvaluated, skippedByConditions: this.skippedByConditions };
  }

  /** Closes the kept-alive connections to webhooks. */
  close(): void {
    this.client.destroy();
  }

  async admit(cluster: LogicalCluster, a: AdmissionAttributes): Promise<void> {
    const configs = cluster.store.list('admissionregistration.k8s.io/validatingwebhookconfigurations');
    if (configs.length === 0) return;
    // Webhook configurations themselves are never subject to webhooks (as upstream).
    if (a.type.group === 'admissionregistration.k8s.io') return;
    // As kube-apiserver: every webhook is matched first (a failed matchCondition refuses the write
    // before any call), then the matched ones are called in parallel.
    const selected: Webhook[] = [];
    let request: Record<string, unknown> | undefined;
    let bindings: Bindings | undefined;
    for (const c of configs) {
      for (const wh of webhooksOf(c)) {
        if (!(wh.rules ?? []).some((r) => ruleMatches(r, a))) continue;
        if (!this.namespaceMatches(cluster, wh, a)) continue;
        const objOk = selectorMatches(wh.objectSelector, a.object?.metadata.labels) || (a.oldObject !== undefined && selectorMatches(wh.objectSelector, a.oldObject.metadata.labels));
        if (!objOk) continue;
        if (wh.matchConditions?.length) {
          request ??= this.request(a);
          bindings ??= new Map();
          const matched = evaluateMatchConditions(conditionsOf(wh), { object: a.object ?? null, oldObject: a.oldObject ?? null, request }, bindings);
          this.conditionsEvaluated++;
          if ('error' in matched) {
            // An error with no condition false: Ignore skips the webhook, Fail refuses the write.
            if (wh.failurePolicy === 'Ignore') continue;
            // kube-apiserver's refusal (apierrors.NewForbidden in ShouldCallHook).
            throw forbidden({ group: a.type.group, resource: a.type.resource }, a.name, matched.error);
          }
          if (!matched.matches) {
            this.skippedByConditions++;
            continue;
          }
        }
        selected.push(wh);
      }
    }
    if (selected.length === 0) return;
    request ??= this.request(a);
    await Promise.all(selected.map((wh) => this.call(cluster.name, wh, a, request!)));
  }

  private namespaceMatches(cluster: LogicalCluster, wh: Webhook, a: AdmissionAttributes): boolean {
    if (!wh.namespaceSelector) return true;
    if (!a.type.namespaced) {
      if (a.type.kind !== 'Namespace') return true;
      return selectorMatches(wh.namespaceSelector, (a.object ?? a.oldObject)?.metadata.labels);
    }
    return selectorMatches(wh.namespaceSelector, cluster.labelsOf(NAMESPACE, '', a.namespace));
  }

  /** The AdmissionRequest without uid, object and oldObject: what matchConditions see as `request`. */
  private request(a: AdmissionAttributes): Record<string, unknown> {
    const kind = a.kind ?? { group: a.type.group, version: a.type.version, kind: a.type.kind };
    const resource = { group: a.type.group, version: a.type.version, resource: a.type.resource };
    const req: Record<string, unknown> = {
      kind,
      resource,
    };
    if (a.subresource) req.subResource = a.subresource;
    req.requestKind = kind;
    req.requestResource = resource;
    if (a.subresource) req.requestSubResource = a.subresource;
    req.name = a.name;
    if (a.namespace) req.namespace = a.namespace;
    req.operation = a.operation;
    req.userInfo = a.user ?? { username: 'system:apiserver', uid: newUid(), groups: ['system:masters'] };
    req.dryRun = a.dryRun;
    const optionsKind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : 'DeleteOptions';
    const options: Record<string, unknown> = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
    // DeleteOptions have no field manager (a delete's ?fieldManager= is not passed on).
    if (a.fieldManager && a.operation !== 'DELETE') options.fieldManager = a.fieldManager;
    if (a.operation === 'DELETE' && a.deleteOptions) {
      for (const k of ['gracePeriodSeconds', 'preconditions', 'orphanDependents', 'propagationPolicy'] as const) {
        if (a.deleteOptions[k] !== undefined) options[k] = a.deleteOptions[k];
      }
    }
    req.options = options;
    return req;
  }

  /** The AdmissionReview sent to a webhook: the request with the objects, in kube-apiserver's field order. */
  private review(a: AdmissionAttributes, request: Record<string, unknown>): Record<string, unknown> {
    // Custom resources travel as kube-apiserver encodes them: keys sorted at every level.
    const encode = (o: ObjectWithMeta | undefined) => (o === undefined ? null : a.type.crd && !a.kind ? sortKeys(o) : o);
    // Each call has a uid of its own, as kube-apiserver's.
    const { dryRun, options, ...head } = request;
    const req = { uid: newUid(), ...head, object: encode(a.object), oldObject: encode(a.oldObject), dryRun, options };
    return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: req };
  }

  private async call(cluster: string, wh: Webhook, a: AdmissionAttributes, request: Record<string, unknown>): Promise<void> {
    const timeout = wh.timeoutSeconds ?? 10;
    const review = this.review(a, request);
    let answer: Record<string, unknown>;
    try {
      const target = webhookTarget(cluster, wh.clientConfig, timeout, this.serviceResolver);
      answer = await this.client.post(target, review, timeout * 1000);
    } catch (err) {
      if (wh.failurePolicy === 'Ignore') return;
      const why = err instanceof Error ? err.message : String(err);
      throw new StatusError(500, 'InternalError', `Internal error occurred: failed calling webhook "${wh.name}": failed to call webhook: ${why}`, {
        causes: [{ message: `failed calling webhook "${wh.name}": failed to call webhook: ${why}` }],
      });
    }
    const response = isPlainObject(answer.response) ? answer.response : {};
    if (response.allowed === true) return;
    const status = isPlainObject(response.status) ? response.status : {};
    const code = typeof status.code === 'number' ? status.code : 403;
    const message = typeof status.message === 'string' && status.message ? status.message : '';
    const reason = typeof status.reason === 'string' ? status.reason : '';
    const text = `admission webhook "${wh.name}" denied the request${message ? `: ${message}` : reason ? `: ${reason}` : ' without explanation'}`;
    const err = new StatusError(code, (reason || '') as never, text);
    throw err;
  }
}
