// Controller runtime benchmark: 50,000 ConfigMaps in the embedded API server, then
//  - time to sync an informer's cache (paged list + watch start) over HTTPS,
//  - heap bytes per cached object (measured after a collection; run with --expose-gc),
//  - no-op reconciles per second (a controller whose reconcile reads the object from the cache).
// Run: node --expose-gc dist/bench/runtime.bench.js [count]
import { startApiServer } from '../src/apiserver/server.js';
import type { ObjectWithMeta as ServerObject } from '../src/kube/object.js';
import { clientFromKubeconfig } from '../src/runtime/client/index.js';
import { Informer } from '../src/runtime/cache/informer.js';
import { silentLogger } from '../src/runtime/log.js';
import { Manager, newControllerManagedBy } from '../src/runtime/manager.js';

const COUNT = Number(process.argv[2] ?? 50_000);
const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect) {
    collect();
    collect();
  }
}

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

const mib = (b: number) => (b / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) console.warn('warning: run with --expose-gc for meaningful memory figures');
  const server = await startApiServer({ port: 0 });
  const cluster = server.cluster('default');
  const cmType = cluster.resolve('', 'v1', 'configmaps');
  if (!cmType) throw new Error('no configmaps resource');
  const t0 = performance.now();
  for (let i = 0; i < COUNT; i++) {
    const cm: ServerObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bench-${i}`, namespace: 'default', labels: { app: 'bench', shard: String(i % 16) } }, data: { value: String(i) } };
    await cluster.create(cmType, 'default', cm, { internal: true });
  }
  console.log(`created ${COUNT} ConfigMaps in-process in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const access = server.clusterAccess('default');
  const client = clientFromKubeconfig(access.kubeconfig, { qps: 0 });

  // 1. Cache sync time and memory per cached object.
  const before = heapUsed();
  const informerStop = new AbortController();
  const informer = new Informer(client, { kind: CONFIGMAP, namespace: 'default', pageSize: 500 });
  const t1 = performance.now();
  const informerRun = informer.run(informerStop.signal);
  await informer.synced;
  const syncMs = performance.now() - t1;
  const afterSync = heapUsed();
  const cached = informer.store.size;
  console.log(`cache sync (list ${COUNT} in pages of 500 + watch start): ${(syncMs / 1000).toFixed(2)} s, ${Math.round(cached / (syncMs / 1000))} objects/s`);
  console.log(`memory per cached object: ${Math.round((afterSync - before) / cached)} bytes (${mib(afterSync - before)} MiB heap for ${cached} objects, indexes by namespace and label included)`);
  informerStop.abort();
  await informerRun;

  // 2. No-op reconciles per second, reading from the (shared) cache.
  for (const workers of [1, 8]) {
    const manager = new Manager({ client, logger: silentLogger });
    let reconciles = 0;
    const store = manager.cache(CONFIGMAP);
    const controller = newControllerManagedBy(manager)
      .named(`noop-${workers}`)
      .for(CONFIGMAP)
      .withOptions({ maxConcurrentReconciles: workers })
      .complete(async (req) => {
        if (store.get(`${req.namespace}/${req.name}`)) reconciles++;
      });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.ready();
    // The first pass (initial adds) warms up; measure full passes over every key.
    const waitFor = async (n: number) => {
      while (reconciles < n) await new Promise((r) => setImmediate(r));
    };
    await waitFor(cached);
    const passes = 3;
    const t2 = performance.now();
    for (let p = 1; p <= passes; p++) {
      controller.enqueueAll();
      await waitFor(cached * (p + 1));
    }
    const seconds = (performance.now() - t2) / 1000;
    console.log(`no-op reconciles (${workers} worker${workers > 1 ? 's' : ''}, read from cache): ${Math.round((cached * passes) / seconds)} per second`);
    stop.abort();
    await running;
  }

  client.close();
  await server.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
