// The API server's /metrics: kube-apiserver's request counter and latency histogram and its stored
// object counts, under upstream's names, label sets and buckets. Requests of every logical cluster
// count together (no cluster label: a fleet holds thousands of clusters), and so do stored objects.
import type { LogicalCluster } from './cluster.js';
import type { ResourcePath } from './handler.js';
import { BUILTIN_TYPES, resourceKey, type ResourceType } from './resources.js';
import { Registry, SERIES_SEPARATOR as SEP } from '../util/prometheus.js';

/** kube-apiserver's buckets for apiserver_request_duration_seconds (since 1.25; 1.24 started at 0.05). */
export const REQUEST_DURATION_BUCKETS = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];

// Label names sorted, as Prometheus clients write them; series keys follow this order.
const HISTOGRAM_LABELS = ['component', 'dry_run', 'group', 'resource', 'scope', 'subresource', 'verb', 'version'];
const COUNTER_LABELS = ['code', ...HISTOGRAM_LABELS];

/** Built-in storages once each (events.k8s.io Events are core Events), with their `resource.group` label. */
const BUILTIN_STORAGES: readonly { key: string; label: string }[] = [...new Map(BUILTIN_TYPES.filter((t) => !t.storedAs).map((t) => [resourceKey(t), storageLabel(t)])).entries()].map(([key, label]) => ({ key, label }));

function storageLabel(t: ResourceType): string {
  return t.group ? `${t.resource}.${t.group}` : t.resource;
}

export class ApiServerMetrics {
  private readonly registry = new Registry();
  private readonly byRoute = new Map<string, number>();
  private readonly requests = this.registry.counter({
    name: 'apiserver_request_total',
    help: '[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    labelNames: COUNTER_LABELS,
  });
  private readonly latencies = this.registry.histogram({
    name: 'apiserver_request_duration_seconds',
    help: '[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    labelNames: HISTOGRAM_LABELS,
    buckets: REQUEST_DURATION_BUCKETS,
  });

  constructor(clusters: () => Iterable<LogicalCluster>) {
    const objects = this.registry.gauge({ name: 'apiserver_storage_objects', help: '[STABLE] Number of stored objects at the time of last check split by kind.', labelNames: ['resource'] });
    let shown = new Set<string>();
    objects.onCollect(() => {
      const now = storedObjects(clusters());
      // A resource no cluster serves any more (its CRD deleted everywhere) leaves the output.
      for (const resource of shown) if (!now.has(resource)) objects.remove({ resource });
      for (const [resource, n] of now) objects.set({ resource }, n);
      shown = new Set(now.keys());
    });
  }

  /**
   * A request to a served resource, answered with `code` after `seconds`. The labels are what
   * kube-apiserver reports: LIST/WATCH/APPLY told apart from GET and PATCH, scope `resource` for a
   * named object or a create, else `namespace` or `cluster`.
   */
  recordResource(method: string, route: ResourcePath, query: URLSearchParams, contentType: string | undefined, code: number, seconds: number, clusterClass: string): void {
    const scope = route.name !== undefined || method === 'POST' ? 'resource' : route.namespace !== undefined ? 'namespace' : 'cluster';
    const verb = verbOf(method, route, query, contentType, scope);
    const routeKey = `${clusterClass} ${verb} ${route.group ? `${route.group}/` : ''}${route.resource}${route.subresource ? `/${route.subresource}` : ''}`;
    this.byRoute.set(routeKey, (this.byRoute.get(routeKey) ?? 0) + 1);
    const dryRun = dryRunLabel(query);
    const key = `apiserver${SEP}${dryRun}${SEP}${route.group}${SEP}${route.resource}${SEP}${scope}${SEP}${route.subresource ?? ''}${SEP}${verb}${SEP}${route.version}`;
    this.requests.incSeries(`${code}${SEP}${key}`);
    this.latencies.observeSeries(key, seconds);
  }

  /**
   * Requests answered so far by cluster class, verb and resource (`runtime PATCH apps/deployments/status`),
   * for benchmarks: which requests a workload costs. Bounded by classes x verbs x resources.
   */
  requestsByRoute(): Record<string, number> {
    return Object.fromEntries(this.byRoute);
  }

  /** A health check (`/healthz`, `/readyz`, `/livez`): upstream labels these by path, without a component. */
  recordHealth(path: string, code: number, seconds: number): void {
    const key = `${SEP}${SEP}${SEP}${SEP}${SEP}${path}${SEP}GET${SEP}`;
    this.requests.incSeries(`${code}${SEP}${key}`);
    this.latencies.observeSeries(key, seconds);
  }

  /** The Prometheus text exposition (format 0.0.4). */
  render(): string {
    return this.registry.render();
  }
}

/** Upstream's cleanDryRun: `All` (the only valid value) or `invalid`, so the label has three values at most. */
function dryRunLabel(query: URLSearchParams): string {
  if (!query.has('dryRun')) return '';
  return query.getAll('dryRun').every((v) => v === 'All') ? 'All' : 'invalid';
}

function verbOf(method: string, route: ResourcePath, query: URLSearchParams, contentType: string | undefined, scope: string): string {
  switch (method) {
    case 'GET':
    case 'HEAD': {
      const watch = query.get('watch');
      if (route.watchPrefix || watch === '1' || watch === 'true') return 'WATCH';
      return scope === 'resource' ? 'GET' : 'LIST';
    }
    case 'PATCH':
      return contentType === 'application/apply-patch+yaml' ? 'APPLY' : 'PATCH';
    case 'POST':
    case 'PUT':
    case 'DELETE':
      return method;
    default:
      return 'other';
  }
}

/** Stored objects by `resource.group`, summed over logical clusters (every built-in storage listed, empty ones as 0). */
export function storedObjects(clusters: Iterable<LogicalCluster>): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of BUILTIN_STORAGES) out.set(s.label, 0);
  for (const c of clusters) {
    for (const s of BUILTIN_STORAGES) out.set(s.label, out.get(s.label)! + c.store.count(s.key));
    let counted: Set<string> | undefined;
    for (const t of c.customTypeList()) {
      const key = resourceKey(t);
      // A CRD serves several versions from one storage: count it once.
      if (counted?.has(key)) continue;
      (counted ??= new Set()).add(key);
      const label = storageLabel(t);
      out.set(label, (out.get(label) ?? 0) + c.store.count(key));
    }
  }
  return out;
}
