// What bench:fleet and bench:shards share: the fleet (Runtimes with Kymas enabling 5 modules, a
// sixth for changes), the benchmark's slim informers on it, the convergence wait with progress
// lines, the API server's request counter, memory of a process, and a module enabled in a
// runtime's own Kyma, timed until it is Ready there.
import os from 'node:os';
import { Runtime, type RuntimeObject } from '../src/api/infrastructuremanager/index.js';
import { kubeconfigSecretName } from '../src/api/infrastructuremanager/v1/gardenercluster.js';
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, type KymaObject, Manifest, Namespaces } from '../src/api/operator/index.js';
import { buildRuntimeAndKyma, validateRuntimeRequest } from '../src/cli/runtime-spec.js';
import { adminCall } from '../src/apiserver/admin-client.js';
import { Informer } from '../src/runtime/cache/informer.js';
import { type Client, clientFromKubeconfig, loadKubeconfig } from '../src/runtime/client/index.js';
import { namespacedName } from '../src/kube/keys.js';
import type { KubeObject } from '../src/kube/object.js';
import { processRss } from '../src/landscape/process.js';
import { internStrings, sharedStrings } from '../src/util/intern.js';
import { sleep } from '../src/util/sleep.js';
import { statesOf } from './stats.js';

export const NS = Namespaces.ControlPlane;
export const MODULES = ['fleet-alpha', 'fleet-beta', 'fleet-gamma', 'fleet-delta', 'fleet-epsilon'];
/** Enabled in the change phase only. */
export const EXTRA_MODULE = 'fleet-zeta';

/**
 * Controller flags the benchmarks set unless given: the KCP and garden client rate limits (kcp run's
 * default 50 QPS would make convergence a benchmark of the client-side limiter; a deployment at this
 * size sets them by flag).
 */
export const DEFAULT_DEVIATIONS: Record<string, string> = {
  'k8s-client-qps': '1000',
  'k8s-client-burst': '2000',
  'gardener-ratelimiter-qps': '1000',
  'gardener-ratelimiter-burst': '2000',
};

/** `--flag value` pairs of the command line that are not the benchmark's own (`own`), plus the default deviations. */
export function controllerFlags(own: ReadonlySet<string>): { argv: string[]; deviations: Record<string, string> } {
  const given: Record<string, string> = {};
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('--')) throw new Error(`unexpected argument ${args[i]}`);
    if (own.has(args[i])) {
      i++;
      continue;
    }
    const [name, inline] = args[i].slice(2).split('=', 2);
    if (inline !== undefined) given[name] = inline;
    else given[name] = args[++i] ?? '';
  }
  const deviations = { ...DEFAULT_DEVIATIONS, ...given };
  return { argv: Object.entries(deviations).flatMap(([k, v]) => [`--${k}`, v]), deviations };
}

export function machineLine(): string {
  return `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`;
}

/** Current and peak resident memory of a process, in MiB (NaN where /proc is not there or it is gone). */
export function memoryOf(pid: number): { rssMiB: number; peakMiB: number } {
  const m = processRss(pid);
  return m ? { rssMiB: m.rss / 2 ** 20, peakMiB: m.peakRss / 2 ** 20 } : { rssMiB: NaN, peakMiB: NaN };
}

/** What the benchmark keeps of each object: its state, and the module states of a Kyma. */
type Slim = KubeObject & { status?: { state?: string; modules?: { name: string; version?: string; state?: string }[]; lastOperation?: { operation?: string } } };
function slim(o: KubeObject): Slim {
  return internStrings(slimmed(o), sharedStrings);
}
function slimmed(o: KubeObject): Slim {
  const status = (o as Slim).status;
  // What a Manifest that is not Ready says it waits for (numbers blanked, so that alike messages group).
  const waiting = o.kind === 'Manifest' && status?.state !== 'Ready' ? status?.lastOperation?.operation?.replace(/\d+/g, 'N').slice(0, 80) : undefined;
  return {
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name: o.metadata.name, namespace: o.metadata.namespace, resourceVersion: o.metadata.resourceVersion },
    status: {
      state: status?.state,
      ...(status?.modules ? { modules: status.modules.map((m) => ({ name: m.name, version: m.version, state: m.state })) } : {}),
      ...(waiting !== undefined ? { lastOperation: { operation: waiting } } : {}),
    },
  };
}

/** Manifests not Ready, by what their status says (the three largest groups). */
function waitingManifests(manifests: Slim[]): string {
  const counts = new Map<string, number>();
  for (const m of manifests) {
    if (m.status?.state === 'Ready') continue;
    const what = `${m.status?.state ?? 'no state'}: ${m.status?.lastOperation?.operation ?? '-'}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([w, n]) => `${n} ${w}`).join(' | ');
}

/** The request of runtime `i` of a benchmark fleet (`rt-00042`), as `kcp runtime create` takes it. */
export function runtimeRequest(i: number) {
  return validateRuntimeRequest({
    name: `rt-${String(i).padStart(5, '0')}`,
    provider: 'aws',
    region: 'eu-central-1',
    administrators: ['admin@example.com'],
    minimum: 1,
    maximum: 3,
    purpose: 'evaluation',
    platformRegion: 'cf-eu10',
    globalAccountID: 'ga-1',
    subaccountID: 'sa-1',
    channel: 'regular',
  });
}

/**
 * Keys of an informer's objects for which `holds` is true, kept up to date by its events: counting
 * them costs nothing, where listing 50,000 Manifests each second took about 3% of the controllers'
 * process at 10,000 runtimes.
 */
function keysWhere(inf: Informer<Slim>, holds: (o: Slim) => boolean): Set<string> {
  const keys = new Set<string>();
  const look = (o: Slim): void => {
    if (holds(o)) keys.add(namespacedName(o));
    else keys.delete(namespacedName(o));
  };
  inf.addHandlers({ onAdd: look, onUpdate: (_old, o) => look(o), onDelete: (o) => keys.delete(namespacedName(o)) });
  return keys;
}

/** The fleet as the benchmark sees it: slim informers on Runtimes, Kymas and Manifests. */
export class FleetWatch {
  readonly informers: Record<'runtimes' | 'kymas' | 'manifests', Informer<Slim>>;
  private readonly lifetime = new AbortController();
  /** Kymas Ready with every module in their status, and Manifests Ready. */
  private readonly ready: { kymas: Set<string>; manifests: Set<string> };

  constructor(
    private readonly kcp: Client,
    private readonly runtimes: number,
  ) {
    this.informers = {
      runtimes: new Informer<Slim>(kcp, { kind: Runtime, namespace: NS, transform: slim }),
      kymas: new Informer<Slim>(kcp, { kind: Kyma, namespace: NS, transform: slim }),
      manifests: new Informer<Slim>(kcp, { kind: Manifest, namespace: NS, transform: slim }),
    };
    this.ready = {
      kymas: keysWhere(this.informers.kymas, (k) => k.status?.state === 'Ready' && (k.status.modules ?? []).length === MODULES.length),
      manifests: keysWhere(this.informers.manifests, (m) => m.status?.state === 'Ready'),
    };
  }

  async start(): Promise<void> {
    for (const inf of Object.values(this.informers)) inf.run(this.lifetime.signal).catch((e: unknown) => console.error(`informer ${inf.kind.kind} failed`, e));
    for (const inf of Object.values(this.informers)) await inf.synced;
  }

  stop(): void {
    this.lifetime.abort();
  }

  /** The benchmark's own requests (informer lists and watches), to count out of the server's. */
  ownRequests(): number {
    return Object.values(this.informers).reduce((n, inf) => n + inf.stats.lists * Math.max(1, Math.ceil(inf.store.size / 500)) + inf.stats.watches, 0);
  }

  /**
   * Calls `seen` with every error any status shows from now on (a Runtime Failed, a Kyma or Manifest
   * in Error, a module in Error in a Kyma's status), as `Kind name: state`, on every update, not only
   * the last one.
   */
  watchErrors(seen: (error: string) => void): void {
    for (const [kind, inf] of [['Runtime', this.informers.runtimes], ['Kyma', this.informers.kymas], ['Manifest', this.informers.manifests]] as const) {
      const look = (o: Slim): void => {
        const state = o.status?.state;
        if (state === 'Error' || state === 'Failed') seen(`${kind} ${o.metadata.name ?? ''}: ${state}`);
        for (const m of o.status?.modules ?? []) if (m.state === 'Error') seen(`${kind} ${o.metadata.name ?? ''}: module ${m.name} Error`);
      };
      inf.addHandlers({ onAdd: look, onUpdate: (_old, o) => look(o) });
    }
  }

  /** Manifests Ready now. */
  readyManifests(): number {
    return this.ready.manifests.size;
  }

  kymaNames(): string[] {
    return this.informers.kymas.store.list().map((k) => k.metadata.name ?? '');
  }

  /** Creates the Runtimes with their Kymas, 50 at once, as `kcp runtime create` builds them. */
  async createFleet(): Promise<void> {
    const t0 = performance.now();
    for (let i = 0; i < this.runtimes; i += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, this.runtimes - i) }, async (_, j) => {
          const built = buildRuntimeAndKyma(runtimeRequest(i + j), NS);
          await this.kcp.create<RuntimeObject>(built.runtime);
          await this.kcp.create<KymaObject>({ ...built.kyma, spec: { ...built.kyma.spec, modules: MODULES.map((name) => ({ name })) } });
        }),
      );
    }
    console.log(`created ${this.runtimes} Runtimes and Kymas in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }

  private readiness() {
    const readyKymas = this.ready.kymas.size;
    const readyManifests = this.ready.manifests.size;
    return { readyKymas, readyManifests, done: readyKymas === this.runtimes && readyManifests === this.runtimes * MODULES.length };
  }

  /**
   * Waits until every Kyma and Manifest is Ready, a progress line every 10 s (`memory()`: its RSS
   * part). Throws NotConverged after `timeoutSeconds`, or when `stop` aborts (Ctrl-C).
   */
  async converge(t0: number, timeoutSeconds: number, memory: () => string, stop?: AbortSignal, detail?: () => string): Promise<void> {
    let lastPrint = 0;
    for (;;) {
      const s = this.readiness();
      const seconds = (performance.now() - t0) / 1000;
      if (s.done) return;
      const where = `${s.readyKymas}/${this.runtimes} Kymas, ${s.readyManifests}/${this.runtimes * MODULES.length} Manifests Ready`;
      if (seconds > timeoutSeconds) throw new NotConverged(`not converged after ${timeoutSeconds} s (--converge-timeout): ${where}`);
      if (stop?.aborted) throw new NotConverged(`stopped at ${seconds.toFixed(0)} s before converging: ${where}`);
      if (performance.now() - lastPrint >= 10_000) {
        lastPrint = performance.now();
        console.log(
          `  ${seconds.toFixed(0)} s: Runtimes ${statesOf(this.informers.runtimes.store.list())}; Kymas Ready ${s.readyKymas}/${this.runtimes}; Manifests Ready ${s.readyManifests}/${this.runtimes * MODULES.length}; RSS ${memory()}`,
        );
        const waiting = waitingManifests(this.informers.manifests.store.list());
        if (waiting) console.log(`    Manifests waiting: ${waiting}`);
        if (detail) console.log(`    ${detail()}`);
      }
      await sleep(250);
    }
  }
}

/** The fleet did not converge: the timeout passed or the run was stopped. */
export class NotConverged extends Error {}

/** What `GET /_kcp/stats` answers (docs/apiserver.md), read with the KCP kubeconfig: its token is the server's admin token. */
interface ConnectionStats {
  /** TLS connections the API server accepted, and of them those that resumed a session. */
  tlsConnections?: { connections: number; resumed: number };
  /** Admission webhook calls the API server made, and the connections they opened. */
  webhookCalls?: { calls: number; connections: number; resumed: number; skippedByConditions?: number };
}

interface AdminStats extends ConnectionStats {
  requests: number;
  requestsByRoute?: Record<string, number>;
}

function adminStatsReader(kcpKubeconfig: string): () => Promise<AdminStats> {
  const cluster = loadKubeconfig(kcpKubeconfig);
  return async () => {
    const token = ((await cluster.auth?.authorization()) ?? '').replace(/^Bearer /, '');
    return (await adminCall(cluster.server, token, cluster.tls.ca ?? '', 'GET', '/_kcp/stats')) as AdminStats;
  };
}

/** Requests the landscape's API server answered since it started. */
export function statsReader(kcpKubeconfig: string): () => Promise<number> {
  const read = adminStatsReader(kcpKubeconfig);
  return async () => (await read()).requests;
}

/** Requests to served resources by cluster class, verb and resource (`runtime PATCH apps/deployments/status`). */
export function routeCountsReader(kcpKubeconfig: string): () => Promise<Record<string, number>> {
  const read = adminStatsReader(kcpKubeconfig);
  return async () => (await read()).requestsByRoute ?? {};
}

/** The API server's connection counts (`GET /_kcp/stats`): TLS connections accepted, webhook calls and their connections. */
export function connectionStatsReader(kcpKubeconfig: string): () => Promise<ConnectionStats> {
  const read = adminStatsReader(kcpKubeconfig);
  return async () => {
    const { tlsConnections, webhookCalls } = await read();
    return { tlsConnections, webhookCalls };
  };
}

/** What two readings of connectionStatsReader say about connection reuse between them, for `requests` requests. */
export function connectionDeltaLine(before: ConnectionStats, after: ConnectionStats, requests: number): string {
  const tls = { connections: (after.tlsConnections?.connections ?? 0) - (before.tlsConnections?.connections ?? 0), resumed: (after.tlsConnections?.resumed ?? 0) - (before.tlsConnections?.resumed ?? 0) };
  const wh = {
    calls: (after.webhookCalls?.calls ?? 0) - (before.webhookCalls?.calls ?? 0),
    connections: (after.webhookCalls?.connections ?? 0) - (before.webhookCalls?.connections ?? 0),
    resumed: (after.webhookCalls?.resumed ?? 0) - (before.webhookCalls?.resumed ?? 0),
    skipped: (after.webhookCalls?.skippedByConditions ?? 0) - (before.webhookCalls?.skippedByConditions ?? 0),
  };
  const per = (n: number, of: number) => (of > 0 ? `${((100 * n) / of).toFixed(1)}%` : '-');
  return (
    `TLS connections the API server accepted: ${tls.connections} for ${requests} requests (${per(tls.connections, requests)}), ${tls.resumed} of them resumed; ` +
    `admission webhook calls ${wh.calls}, opening ${wh.connections} connections (${per(wh.connections, wh.calls)} of the calls), ${wh.resumed} of them resumed; ` +
    `${wh.skipped} calls left out by the webhooks' matchConditions`
  );
}

/** The `top` routes that grew most between two readings, as `route n` per line with the share of the total. */
export function routeDeltaLines(before: Record<string, number>, after: Record<string, number>, top: number): string[] {
  const delta = Object.entries(after)
    .map(([route, n]) => [route, n - (before[route] ?? 0)] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = delta.reduce((sum, [, n]) => sum + n, 0);
  const shown = delta.slice(0, top).map(([route, n]) => `    ${route} ${n} (${((100 * n) / total).toFixed(1)}%)`);
  const rest = delta.slice(top).reduce((sum, [, n]) => sum + n, 0);
  return rest > 0 ? [...shown, `    ${delta.length - top} other routes ${rest} (${((100 * rest) / total).toFixed(1)}%)`] : shown;
}

/** Enables EXTRA_MODULE in a runtime's own Kyma (as its admin's kubectl does); milliseconds until its status shows it Ready. */
export async function enableInRuntime(kcp: Client, kymaName: string, timeoutMs = 120_000): Promise<number> {
  const secret = await kcp.get<KubeObject & { data?: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret' }, { namespace: NS, name: kubeconfigSecretName(kymaName) });
  const runtime = clientFromKubeconfig(Buffer.from(secret.data?.config ?? '', 'base64').toString('utf8'), { qps: 0 });
  const key = { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME };
  const watchAbort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  try {
    const current = await runtime.get<KymaObject>(Kyma, key);
    const isReady = (k: KymaObject) => (k.status?.modules ?? []).some((m) => m.name === EXTRA_MODULE && m.state === 'Ready');
    const seen = (async () => {
      for await (const ev of runtime.watch<KymaObject>(Kyma, { namespace: key.namespace, fieldSelector: `metadata.name=${key.name}`, resourceVersion: current.metadata.resourceVersion, signal: watchAbort.signal })) {
        if (ev.type !== 'ERROR' && isReady(ev.object)) return performance.now();
      }
      throw new Error('the watch of the runtime Kyma ended');
    })();
    const sent = performance.now();
    await runtime.patch(Kyma, key, 'merge', { spec: { modules: [...(current.spec.modules ?? []), { name: EXTRA_MODULE }] } });
    const readyAt = await Promise.race([
      seen,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`not Ready within ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    return readyAt - sent;
  } finally {
    clearTimeout(timer);
    watchAbort.abort();
    runtime.close();
  }
}
