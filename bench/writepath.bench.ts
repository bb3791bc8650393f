// npm run bench:writepath — the embedded API server's write path as the fleet uses it, in one process
// without HTTP (the server's own cost per write, apart from TLS and the network): N runtime clusters
// (default 200) with the durable store of `kcp up`, each given bench:fleet's 5 modules as the
// Manifest controller renders them (13 objects each), and the KCP's writes for them. Each phase is
// timed by itself and printed as microseconds of CPU per request, the background work its requests
// cause included (the in-process controllers until idle, a store compaction they started):
//
//   - apply (creating): server-side apply of every module object (field manager and force as the
//     Manifest controller sends them), the runtime's `kyma-system` namespace first;
//   - apply (unchanged): the same applies again (what a drift check's restore or a re-install sends);
//   - create: each module's default CR (POST), as the Manifest controller creates it;
//   - status merge patch: the module operator reporting its CR Ready (`/status`);
//   - KCP Manifest apply, status merge patches (Processing, then Ready) and Event creates: the
//     lifecycle manager's writes into the KCP per module.
//
// Rounds run one after another, each on a fresh server (`--rounds`, default 3, after a warm-up round
// that is not counted), and the median is printed, with one JSON line at the end. Compare two trees
// by running both, one after the other, on a quiet machine.
//
//   node dist/bench/writepath.bench.js [--clusters N] [--rounds R]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { crdOf } from '../src/api/crd.js';
import { Manifest, type ManifestObject } from '../src/api/operator/index.js';
import type { LogicalCluster, WriteOptions } from '../src/apiserver/cluster.js';
import type { ResourceType } from '../src/apiserver/resources.js';
import { type RunningApiServer, startApiServer } from '../src/apiserver/server.js';
import type { KubeObject, ObjectWithMeta } from '../src/kube/object.js';
import { renderObjects } from '../src/lifecycle/manifest/render.js';
import type { Client } from '../src/runtime/client/interface.js';
import { sleep } from '../src/util/sleep.js';
import { machineLine } from './fleet-common.js';
import { FLEET_MODULE_VERSION, fleetModuleObjects, moduleKind } from './fleet-modules.js';
import { option } from './stats.js';

const MODULES = ['fleet-alpha', 'fleet-beta', 'fleet-gamma', 'fleet-delta', 'fleet-epsilon'];
/** The field managers the lifecycle manager writes with (runtime objects; KCP Manifests). */
const APPLIER = 'declarative.kyma-project.io/applier';
const KLM = 'lifecycle-manager';
const ADMIN = { username: 'kcp-admin', uid: 'kcp-admin', groups: ['system:masters', 'system:authenticated'] };

type Phase = 'applyCreate' | 'applyUnchanged' | 'crCreate' | 'crStatus' | 'manifestApply' | 'manifestStatus' | 'eventCreate';
const PHASES: Record<Phase, string> = {
  applyCreate: 'runtime: apply, creating',
  applyUnchanged: 'runtime: apply, unchanged',
  crCreate: 'runtime: create of the default CR',
  crStatus: 'runtime: status merge patch of the CR',
  manifestApply: 'KCP: Manifest apply, creating',
  manifestStatus: 'KCP: Manifest status merge patch',
  eventCreate: 'KCP: Event create',
};

/** As a request over HTTP carries them: the admin user, field validation's default, a place for warnings. */
function opts(fieldManager: string): WriteOptions {
  return { fieldManager, explicitFieldManager: true, user: ADMIN, warnings: [] };
}

function resolve(c: LogicalCluster, apiVersion: string, kind: string): ResourceType {
  const t = c.typeForKind(apiVersion, kind);
  if (!t) throw new Error(`${kind} ${apiVersion} is not served`);
  return t;
}

async function served(c: LogicalCluster, apiVersion: string, kind: string): Promise<ResourceType> {
  for (let i = 0; i < 500; i++) {
    const t = c.typeForKind(apiVersion, kind);
    if (t) return t;
    await sleep(10);
  }
  throw new Error(`${kind} ${apiVersion} was not served within 5 s`);
}

/** The in-process controllers idle and no store compaction running (one the last writes scheduled has begun). */
async function settled(server: RunningApiServer): Promise<void> {
  await server.idle();
  await new Promise((resolve) => setImmediate(resolve));
  while (server.storeStats()?.compacting) await sleep(10);
}

/**
 * CPU microseconds per call of `fn` over `items` (calls one after another, as the event loop would
 * serve them), with the background work they cause: the in-process controllers until idle, and a
 * store compaction the writes started until it is done (else it lands in the next phase).
 */
async function timed<T>(server: RunningApiServer, items: readonly T[], fn: (item: T) => Promise<unknown>): Promise<number> {
  const cpu0 = process.cpuUsage();
  for (const item of items) await fn(item);
  await settled(server);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / items.length;
}

/** The Manifest of a module in a runtime, as the Kyma controller applies it. */
function manifestOf(runtime: string, module: string): ManifestObject {
  return {
    apiVersion: 'operator.kyma-project.io/v1beta2',
    kind: 'Manifest',
    metadata: {
      name: `${runtime}-${module}`,
      namespace: 'kcp-system',
      labels: { 'operator.kyma-project.io/kyma-name': runtime, 'operator.kyma-project.io/module-name': module, 'operator.kyma-project.io/managed-by': 'lifecycle-manager' },
    },
    spec: {
      remote: true,
      version: FLEET_MODULE_VERSION,
      install: { name: 'raw-manifest', source: { url: `oci://127.0.0.1:5000/kyma-project.io/module/${module}:${FLEET_MODULE_VERSION}` } },
      resource: { apiVersion: `${module}.bench.example/v1alpha1`, kind: moduleKind(module), metadata: { name: 'default', namespace: 'kyma-system' }, spec: { replicas: 1 } },
    },
  } as unknown as ManifestObject;
}

function manifestStatus(module: string, objects: readonly KubeObject[], state: 'Processing' | 'Ready'): Record<string, unknown> {
  const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastTransitionTime: at, observedGeneration: 1 });
  return {
    state,
    conditions: [
      cond('Resources', 'True', 'ResourcesAvailable', 'resources are parsed and ready for use'),
      cond('Installation', state === 'Ready' ? 'True' : 'False', 'Ready', state === 'Ready' ? 'installation is ready and resources can be used' : 'installation is not ready'),
      cond('ModuleCR', state === 'Ready' ? 'True' : 'False', 'ModuleCRCreated', state === 'Ready' ? 'Module CR is created' : 'Module CR is not created'),
    ],
    synced: objects.map((o) => ({ group: o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '', version: o.apiVersion.split('/').pop(), kind: o.kind, name: o.metadata.name, namespace: o.metadata.namespace ?? '' })),
    lastOperation: { operation: state === 'Ready' ? 'installation is ready and resources can be used' : `waiting for ${module}-manager to become available`, lastUpdateTime: at },
  };
}

interface Round {
  us: Record<Phase, number>;
  requests: Record<Phase, number>;
}

async function round(clusters: number, rendered: Map<string, KubeObject[]>, crs: Map<string, KubeObject>): Promise<Round> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'kcp-bench-writepath-'));
  let server: RunningApiServer | undefined;
  try {
    server = await startApiServer({ port: 0, dataDir });
    const kcp = server.cluster('default');
    const crdType = resolve(kcp, 'apiextensions.k8s.io/v1', 'CustomResourceDefinition');
    const crd = crdOf(Manifest) as unknown as ObjectWithMeta;
    await kcp.patch(crdType, '', crd.metadata.name ?? '', 'apply', crd, { ...opts('kcp-up'), force: true });
    await kcp.patch(resolve(kcp, 'v1', 'Namespace'), '', 'kcp-system', 'apply', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kcp-system' } }, opts('kcp-up'));
    const manifestType = await served(kcp, 'operator.kyma-project.io/v1beta2', 'Manifest');
    const eventType = resolve(kcp, 'events.k8s.io/v1', 'Event');

    const runtimes = Array.from({ length: clusters }, (_, i) => `rt-${String(i).padStart(5, '0')}`);
    for (const name of runtimes) {
      await server.createCluster(name);
      const c = server.cluster(name);
      await c.patch(resolve(c, 'v1', 'Namespace'), '', 'kyma-system', 'apply', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } }, { ...opts(APPLIER), force: true });
    }
    await settled(server);

    const applies = runtimes.flatMap((rt) => MODULES.flatMap((m) => rendered.get(m)!.map((o) => ({ c: server!.cluster(rt), o }))));
    const apply = ({ c, o }: { c: LogicalCluster; o: KubeObject }) => {
      const t = resolve(c, o.apiVersion, o.kind);
      return c.patch(t, o.metadata.namespace ?? '', o.metadata.name ?? '', 'apply', structuredClone(o), { ...opts(APPLIER), force: true });
    };
    const us = {} as Record<Phase, number>;
    const requests = {} as Record<Phase, number>;
    const record = (phase: Phase, n: number, value: number) => {
      us[phase] = value;
      requests[phase] = n;
    };
    record('applyCreate', applies.length, await timed(server, applies, apply));
    record('applyUnchanged', applies.length, await timed(server, applies, apply));

    const moduleCrs = [];
    for (const rt of runtimes) {
      const c = server.cluster(rt);
      for (const m of MODULES) {
        const cr = crs.get(m)!;
        moduleCrs.push({ c, cr, t: await served(c, cr.apiVersion, cr.kind) });
      }
    }
    record('crCreate', moduleCrs.length, await timed(server, moduleCrs, ({ c, cr, t }) => c.create(t, 'kyma-system', structuredClone(cr), opts(APPLIER))));
    record(
      'crStatus',
      moduleCrs.length,
      await timed(server, moduleCrs, ({ c, cr, t }) => c.patch(t, 'kyma-system', cr.metadata.name ?? '', 'merge', { status: { state: 'Ready', conditions: [{ type: 'Installation', status: 'True', reason: 'Ready', message: 'module is ready', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }, { ...opts('module-operator'), subresource: 'status' } as WriteOptions)),
    );

    const manifests = runtimes.flatMap((rt) => MODULES.map((m) => ({ rt, m, manifest: manifestOf(rt, m) })));
    record('manifestApply', manifests.length, await timed(server, manifests, ({ manifest }) => kcp.patch(manifestType, 'kcp-system', manifest.metadata.name ?? '', 'apply', structuredClone(manifest), { ...opts(KLM), force: true })));
    const statusWrites = manifests.flatMap((x) => [{ ...x, state: 'Processing' as const }, { ...x, state: 'Ready' as const }]);
    record(
      'manifestStatus',
      statusWrites.length,
      await timed(server, statusWrites, ({ m, manifest, state }) => kcp.patch(manifestType, 'kcp-system', manifest.metadata.name ?? '', 'merge', { status: manifestStatus(m, rendered.get(m)!, state) }, { ...opts(KLM), subresource: 'status' } as WriteOptions)),
    );
    const events = manifests.map(({ manifest }, i) => ({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: `${manifest.metadata.name}.${i.toString(16)}`, namespace: 'kcp-system' },
      eventTime: new Date().toISOString().replace('Z', '000Z'),
      reportingController: KLM,
      reportingInstance: `${KLM}-0`,
      action: 'Reconcile',
      reason: 'ModuleCRCreated',
      note: `created ${moduleKind(manifest.metadata.labels!['operator.kyma-project.io/module-name'])} kyma-system/default`,
      type: 'Normal',
      regarding: { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Manifest', namespace: 'kcp-system', name: manifest.metadata.name, uid: '00000000-0000-0000-0000-000000000000' },
    }));
    record('eventCreate', events.length, await timed(server, events, (e) => kcp.create(eventType, 'kcp-system', e as unknown as ObjectWithMeta, opts(KLM))));
    return { us, requests };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const clusters = option('--clusters', 'WRITEPATH_BENCH_CLUSTERS', 200);
  const rounds = option('--rounds', 'WRITEPATH_BENCH_ROUNDS', 3);
  console.log(machineLine());
  console.log(`${clusters} runtime clusters x ${MODULES.length} modules, ${rounds} rounds; the durable store of kcp up (a data dir, no fsync), in-process (no HTTP)`);
  // Rendered as the Manifest controller renders them (labels, annotations, namespaces); the
  // manifests' kinds are all known, so rendering asks the client nothing.
  const noClient = {} as Client;
  const rendered = new Map<string, KubeObject[]>();
  const crs = new Map<string, KubeObject>();
  for (const m of MODULES) {
    const { manifest, defaultCr } = fleetModuleObjects(m, FLEET_MODULE_VERSION);
    const objects = (yaml.loadAll(manifest) as KubeObject[]).filter(Boolean);
    rendered.set(m, await renderObjects(objects, manifestOf('rt', m), noClient, new AbortController().signal));
    crs.set(m, yaml.load(defaultCr) as KubeObject);
  }
  const results: Round[] = [];
  // Round 0 warms the code up (the JIT's first tiers cost about half again) and is not counted.
  for (let r = 0; r <= rounds; r++) {
    const res = await round(clusters, rendered, crs);
    if (r > 0) results.push(res);
    console.log(`round ${r}${r === 0 ? ' (warm-up, not counted)' : ''}: ${(Object.keys(PHASES) as Phase[]).map((p) => `${p} ${res.us[p].toFixed(0)} us`).join(', ')}`);
  }
  const median = (p: Phase) => results.map((r) => r.us[p]).sort((a, b) => a - b)[Math.floor(results.length / 2)];
  console.log('CPU per request, median of the rounds:');
  for (const [p, label] of Object.entries(PHASES) as [Phase, string][]) console.log(`  ${label.padEnd(40)} ${median(p).toFixed(0).padStart(6)} us  (${results[0].requests[p]} requests a round)`);
  // Where a compaction lands depends on how fast the log grows: the sum over the phases is the figure to compare.
  const totals = results.map((r) => (Object.keys(PHASES) as Phase[]).reduce((sum, p) => sum + r.us[p] * r.requests[p], 0) / 1e6).sort((a, b) => a - b);
  const total = totals[Math.floor(totals.length / 2)];
  console.log(`  all phases: ${total.toFixed(2)} s of CPU a round (median; rounds ${totals.map((t) => t.toFixed(2)).join(', ')} s)`);
  const out: Record<string, number> = { clusters, rounds, totalCpuS: Number(total.toFixed(2)) };
  for (const p of Object.keys(PHASES) as Phase[]) out[`${p}Us`] = Math.round(median(p));
  console.log(JSON.stringify(out));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
