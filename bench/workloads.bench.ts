// npm run bench:workloads — what the landscape's workload simulation (src/landscape/workloads) costs
// per Deployment, in one process without HTTP: N logical clusters (default 200), each attached to the
// kubelet simulation (which registers one node) and given D one-replica Deployments (default 6, a
// runtime's modules and its skr-webhook). Once every Deployment is rolled out (its ReplicaSet and Pod
// running) and the simulation has settled, it prints per Deployment: writes, stored objects and JSON,
// the watch history's JSON (the API server keeps every written version in a small cluster), heap
// growth after a full collection, and CPU until ready; and that nothing more was written at rest.
//
//   node --expose-gc dist/bench/workloads.bench.js [--clusters N] [--deployments D]
import { startApiServer } from '../src/apiserver/server.js';
import type { ObjectWithMeta } from '../src/kube/object.js';
import { KubeletSimulator } from '../src/landscape/index.js';
import { sleep } from '../src/util/sleep.js';
import { machineLine } from './fleet-common.js';
import { printSettings } from './settings.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const collect = () => {
  for (let i = 0; i < 3; i++) gc();
};

const clusters = arg('clusters', 200);
const perCluster = arg('deployments', 6);
const readyDelayMs = 20;

console.log(machineLine());
printSettings({ readyDelayMs, clusters, deploymentsPerCluster: perCluster });

const server = await startApiServer({ port: 0 });
const kubelet = new KubeletSimulator(server, { readyDelayMs });
const names = Array.from({ length: clusters }, (_, i) => `skr-bench-${i}`);
for (const name of names) {
  await server.createCluster(name);
  const c = server.cluster(name);
  await c.create(c.resolve('', 'v1', 'namespaces')!, '', { metadata: { name: 'kyma-system' } });
}
await sleep(200);
collect();
const heapBefore = process.memoryUsage().heapUsed;
let writes = 0;
const cpuBefore = process.cpuUsage();
const started = Date.now();
for (const name of names) {
  const c = server.cluster(name);
  c.store.onCommit(() => writes++);
  kubelet.attach(name);
  const deployments = c.resolve('apps', 'v1', 'deployments')!;
  for (let i = 0; i < perCluster; i++) {
    const labels = { app: `module-${i}` };
    const image = `europe-docker.pkg.dev/kyma-project/prod/module-${i}:1.0.0`;
    const spec = { replicas: 1, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'manager', image, resources: { requests: { cpu: '10m', memory: '20Mi' } } }] } } };
    await c.create(deployments, 'kyma-system', { metadata: { name: `module-${i}-manager`, namespace: 'kyma-system', labels }, spec }, { fieldManager: 'lifecycle-manager' });
  }
}
const rolledOut = (json: string) => {
  const d = JSON.parse(json) as ObjectWithMeta & { status?: { availableReplicas?: number; observedGeneration?: number; conditions?: { reason?: string }[] } };
  return d.status?.availableReplicas === 1 && d.status.observedGeneration === d.metadata.generation && (d.status.conditions ?? []).some((x) => x.reason === 'NewReplicaSetAvailable');
};
while (!names.every((n) => server.cluster(n).store.list('apps/deployments').every((o) => rolledOut(o.json)))) await sleep(250);
const readyMs = Date.now() - started;
const cpu = process.cpuUsage(cpuBefore);
const writesAtReady = writes;
await sleep(2000);
collect();
const heapAfter = process.memoryUsage().heapUsed;

let objects = 0;
let storedBytes = 0;
let historyBytes = 0;
for (const name of names) {
  const store = server.cluster(name).store;
  for (const r of store.resources()) {
    for (const o of store.list(r)) {
      objects++;
      storedBytes += o.json.length;
    }
    for (const ev of store.eventsSince(0, r) ?? []) historyBytes += ev.object.json.length;
  }
}
const n = clusters * perCluster;
console.log(`rolled out: ${n} Deployments in ${clusters} clusters in ${(readyMs / 1000).toFixed(1)} s`);
console.log(`per Deployment: ${(writesAtReady / n).toFixed(1)} writes, ${(objects / n).toFixed(2)} stored objects (the clusters' nodes and namespaces shared out), ${Math.round(storedBytes / n)} B stored JSON, ${Math.round(historyBytes / n)} B watch-history JSON`);
console.log(`per Deployment: heap +${((heapAfter - heapBefore) / n / 1024).toFixed(1)} KiB after a full collection, CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms until ready`);
console.log(`writes in the 2 s at rest after: ${writes - writesAtReady}`);
await kubelet.stop();
await server.stop();
