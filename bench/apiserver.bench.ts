// npm run bench:apiserver — throughput, watch latency and memory of the embedded API server.
// Load comes from a worker thread (its own core) over HTTPS with keep-alive, like real clients.
// Run with --expose-gc so the memory figures are measured after a collection.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import https from 'node:https';
import type { ClientRequest } from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startApiServer } from '../src/apiserver/server.js';
import type { ObjectWithMeta } from '../src/kube/object.js';
import { crdOf } from '../src/api/crd.js';
import { Kyma } from '../src/api/operator/v1beta2/kyma.js';

interface LoadJob {
  url: string;
  token: string;
  caPem: string;
  kind: 'writes' | 'kymaWrites' | 'watch';
  count: number;
  concurrency: number;
  watchers?: number;
}

interface LoadResult {
  createPerSec?: number;
  updatePerSec?: number;
  statusPerSec?: number;
  latenciesMs?: number[];
}

function call(agent: https.Agent, job: LoadJob, method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      new URL(path, job.url),
      { agent, method, headers: { authorization: `Bearer ${job.token}`, 'content-type': 'application/json', ...(data ? { 'content-length': Buffer.byteLength(data) } : {}) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** Sends `job.count` requests from `job.concurrency` clients; returns requests per second. */
async function writePhase(agent: https.Agent, job: LoadJob, method: string, expected: number, request: (i: number) => { path: string; body: unknown }): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: job.concurrency }, async () => {
      while (next < job.count) {
        const { path, body } = request(next++);
        const r = await call(agent, job, method, path, body);
        if (r.status !== expected) throw new Error(`${method} ${path} failed: ${r.status} ${r.text}`);
      }
    }),
  );
  return job.count / ((performance.now() - t0) / 1000);
}

async function runWrites(job: LoadJob): Promise<LoadResult> {
  const agent = new https.Agent({ ca: job.caPem, keepAlive: true, maxSockets: job.concurrency });
  const base = '/api/v1/namespaces/default/configmaps';
  const configMap = (i: number, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bench-${i}`, labels: { app: 'bench' } }, data: { value } });
  const createPerSec = await writePhase(agent, job, 'POST', 201, (i) => ({ path: base, body: configMap(i, String(i)) }));
  const updatePerSec = await writePhase(agent, job, 'PUT', 200, (i) => ({ path: `${base}/bench-${i}`, body: configMap(i, `${i}-updated`) }));
  agent.destroy();
  return { createPerSec, updatePerSec };
}

/** A Kyma as the lifecycle manager keeps it: labels, three modules, and a status written through /status. */
function kyma(i: number, channel: string, status?: unknown) {
  return {
    apiVersion: 'operator.kyma-project.io/v1beta2',
    kind: 'Kyma',
    metadata: { name: `kyma-${i}`, namespace: 'default', labels: { 'operator.kyma-project.io/managed-by': 'lifecycle-manager', 'kyma-project.io/runtime-id': `rt-${i}` } },
    spec: { channel, modules: [{ name: 'keda' }, { name: 'api-gateway', channel: 'fast' }, { name: 'serverless' }] },
    ...(status === undefined ? {} : { status }),
  };
}

function kymaStatus(): unknown {
  const modules = ['keda', 'api-gateway', 'serverless'].map((name) => ({ name, fqdn: `kyma-project.io/module/${name}`, channel: 'regular', version: '1.0.0', state: 'Ready', manifest: { apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Manifest', metadata: { name: `m-${name}`, namespace: 'default' } } }));
  const conditions = ['ModuleCatalog', 'Modules', 'SKRWebhook'].map((type) => ({ type, status: 'True', reason: 'Ready', message: 'all ready', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 2 }));
  return { state: 'Ready', lastOperation: { operation: 'kyma is ready', lastUpdateTime: '2026-01-01T00:00:00Z' }, activeChannel: 'regular', conditions, modules };
}

async function runKymaWrites(job: LoadJob): Promise<LoadResult> {
  const agent = new https.Agent({ ca: job.caPem, keepAlive: true, maxSockets: job.concurrency });
  const base = '/apis/operator.kyma-project.io/v1beta2/namespaces/default/kymas';
  const createPerSec = await writePhase(agent, job, 'POST', 201, (i) => ({ path: base, body: kyma(i, 'regular') }));
  const updatePerSec = await writePhase(agent, job, 'PUT', 200, (i) => ({ path: `${base}/kyma-${i}`, body: kyma(i, 'fast') }));
  const statusPerSec = await writePhase(agent, job, 'PUT', 200, (i) => ({ path: `${base}/kyma-${i}/status`, body: kyma(i, 'fast', kymaStatus()) }));
  agent.destroy();
  return { createPerSec, updatePerSec, statusPerSec };
}

async function runWatch(job: LoadJob): Promise<LoadResult> {
  const agent = new https.Agent({ ca: job.caPem, keepAlive: true, maxSockets: (job.watchers ?? 100) + 4 });
  const latencies: number[] = [];
  const sent = new Map<string, number>();
  let pending = 0;
  let resolveAll: (() => void) | undefined;
  const done = new Promise<void>((r) => (resolveAll = r));
  const streams: ClientRequest[] = [];
  await Promise.all(
    Array.from(
      { length: job.watchers ?? 100 },
      () =>
        new Promise<void>((ready) => {
          const req = https.request(new URL('/api/v1/namespaces/watched/configmaps?watch=1&resourceVersion=0', job.url), { agent, headers: { authorization: `Bearer ${job.token}` } }, (res) => {
            let buf = '';
            res.setEncoding('utf8');
            res.on('data', (c: string) => {
              buf += c;
              let nl: number;
              while ((nl = buf.indexOf('\n')) >= 0) {
                const line = buf.slice(0, nl);
                buf = buf.slice(nl + 1);
                const ev = JSON.parse(line) as { object: ObjectWithMeta };
                const at = sent.get(ev.object.metadata.name ?? '');
                if (at !== undefined) {
                  latencies.push(performance.now() - at);
                  if (--pending === 0) resolveAll?.();
                }
              }
            });
            ready();
          });
          req.end();
          streams.push(req);
        }),
    ),
  );
  await new Promise((r) => setTimeout(r, 200));
  pending = job.count * (job.watchers ?? 100);
  for (let i = 0; i < job.count; i++) {
    const name = `w-${i}`;
    sent.set(name, performance.now());
    await call(agent, job, 'POST', '/api/v1/namespaces/watched/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { i: String(i) } });
    await new Promise((r) => setTimeout(r, 5));
  }
  await Promise.race([done, new Promise((r) => setTimeout(r, 30_000))]);
  for (const s of streams) s.destroy();
  agent.destroy();
  return { latenciesMs: latencies };
}

if (!isMainThread) {
  const job = workerData as LoadJob;
  const run = job.kind === 'writes' ? runWrites(job) : job.kind === 'kymaWrites' ? runKymaWrites(job) : runWatch(job);
  run.then((r) => parentPort?.postMessage(r)).catch((e: unknown) => parentPort?.postMessage({ error: String(e) }));
}

function inWorker(job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: job });
    w.once('message', (m: LoadResult & { error?: string }) => (m.error ? reject(new Error(m.error)) : resolve(m)));
    w.once('error', reject);
  });
}

function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

function heapMiB(): number {
  gc();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
}

function configMap(i: number) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `obj-${i}`, labels: { app: 'bench', index: String(i % 10) } }, data: { key: `value-${i}`, other: 'some configuration text' } };
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) console.warn('warning: run with --expose-gc for stable memory figures');
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  console.log(`machine: ${os.cpus().length} x ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`);

  // Memory, measured in-process on the store itself (no HTTP clients around).
  const mem = await startApiServer({ port: 0 });
  await mem.idle();
  const beforeClusters = heapMiB();
  for (let i = 0; i < 2000; i++) await mem.createCluster(`idle-${i}`);
  await mem.idle();
  const perCluster = ((heapMiB() - beforeClusters) * 1024) / 2000;
  console.log(`memory per idle logical cluster (with its 4 default namespaces): ${perCluster.toFixed(1)} KiB`);

  const cmType = mem.cluster('default').resolve('', 'v1', 'configmaps')!;
  // (cmType is shared with the 10,000-cluster run below: built-in types are the same in every cluster.)
  const before = heapMiB();
  for (let i = 0; i < 10_000; i++) await mem.cluster('default').create(cmType, 'default', configMap(i), { internal: true });
  const perThousand = (heapMiB() - before) / 10;
  console.log(`memory per 1,000 stored ConfigMaps: ${perThousand.toFixed(2)} MiB`);
  await mem.stop();

  const server = await startApiServer({ port: 0 });
  const target = { url: server.url, token: server.adminToken, caPem: server.caPem };
  const writes = await inWorker({ ...target, kind: 'writes', count: 20_000, concurrency: 32 });
  console.log(`writes over HTTPS (32 clients): create ${writes.createPerSec?.toFixed(0)}/s, update ${writes.updatePerSec?.toFixed(0)}/s`);
  await server.cluster('default').create(server.cluster('default').resolve('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!, '', crdOf(Kyma) as unknown as ObjectWithMeta, { internal: true });
  const kymas = await inWorker({ ...target, kind: 'kymaWrites', count: 20_000, concurrency: 32 });
  console.log(`custom resource writes over HTTPS (32 clients, Kymas): create ${kymas.createPerSec?.toFixed(0)}/s, update ${kymas.updatePerSec?.toFixed(0)}/s, status ${kymas.statusPerSec?.toFixed(0)}/s`);

  const nsType = server.cluster('default').resolve('', 'v1', 'namespaces')!;
  await server.cluster('default').create(nsType, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'watched' } }, { internal: true });
  const watch = await inWorker({ ...target, kind: 'watch', count: 200, concurrency: 1, watchers: 100 });
  const lat = watch.latenciesMs ?? [];
  console.log(`watch delivery with 100 watchers: p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms (${lat.length} deliveries)`);
  await server.stop();

  const big = await startApiServer({ port: 0, historyLimit: 100 });
  const heap0 = heapMiB();
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  for (let c = 0; c < 10_000; c++) {
    const name = `rt-${c}`;
    await big.createCluster(name);
    const cl = big.cluster(name);
    for (let i = 0; i < 50; i++) await cl.create(cmType, 'default', configMap(i), { internal: true });
    if ((c + 1) % 2000 === 0) console.log(`  ... ${c + 1} clusters, heap ${heapMiB().toFixed(0)} MiB`);
  }
  await big.idle();
  const seconds = (performance.now() - t0) / 1000;
  const heap = heapMiB() - heap0;
  const rss = (process.memoryUsage().rss - rss0) / 2 ** 20;
  console.log(`10,000 logical clusters x 50 ConfigMaps: ${seconds.toFixed(1)} s to create, heap +${heap.toFixed(0)} MiB, rss +${rss.toFixed(0)} MiB`);
  await big.stop();
}

if (isMainThread) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
