// node --expose-gc dist/bench/remote-clients.bench.js [--clusters N] [--rounds R] — the remote
// cluster client cache at scale: N logical clusters (default 10,000; also the first positional
// argument or CLUSTERS) in one embedded API server, each reached over TLS with its own kubeconfig
// Secret in the control-plane cluster, a client per cluster from RemoteClusterCache with its
// production defaults. Each round (default 2) uses every cluster once: a GET of a Namespace (core
// v1) and a one-item list of Deployments (apps/v1), 64 clusters at once. Round 1 builds the clients
// (Secret read, discovery); later rounds reuse them after the socket budget closed most idle
// connections, so they measure reconnects. Per round: time, requests per cluster (server side),
// TLS connections opened and how many resumed a session, TLS contexts built (createSecureContext
// calls, counted by wrapping node:tls); then open sockets and memory per cached client.
// Run with --expose-gc so the memory figures are measured after a collection.
import { syncBuiltinESMExports } from 'node:module';
import tls from 'node:tls';
import { startApiServer } from '../src/apiserver/server.js';
import { clientFromKubeconfig } from '../src/runtime/client/index.js';
import { RemoteClusterCache } from '../src/runtime/remote/cache.js';
import { option } from './stats.js';

const CLUSTERS = option('--clusters', 'CLUSTERS', Number(/^\d+$/.test(process.argv[2] ?? '') ? process.argv[2] : 10_000));
const ROUNDS = option('--rounds', 'ROUNDS', 2);
const CONCURRENCY = 64;
const NAMESPACE = 'kcp-system';

/** TLS work of the whole process (client and server side), counted at node:tls, whatever code calls it. */
const tlsCounts = { contexts: 0, connections: 0, resumed: 0 };
const createSecureContext = tls.createSecureContext;
const connect = tls.connect;
tls.createSecureContext = (...args: Parameters<typeof createSecureContext>) => {
  tlsCounts.contexts++;
  return createSecureContext(...args);
};
tls.connect = ((...args: unknown[]) => {
  const socket = (connect as (...a: unknown[]) => tls.TLSSocket)(...args);
  tlsCounts.connections++;
  socket.once('secureConnect', () => socket.isSessionReused() && tlsCounts.resumed++);
  return socket;
}) as typeof tls.connect;
// Named imports of node:tls (`import { createSecureContext } from 'node:tls'`) see the wrappers too.
syncBuiltinESMExports();

function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

async function forEachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc) console.warn('run with --expose-gc for stable memory figures');
  const server = await startApiServer({ port: 0 });
  const kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig, { qps: 0 });
  await kcp.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });

  const names = Array.from({ length: CLUSTERS }, (_, i) => `runtime-${i}`);
  let t0 = performance.now();
  await forEachLimited(names, 16, async (name) => {
    const access = await server.createCluster(name);
    await kcp.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: `kubeconfig-${name}`, namespace: NAMESPACE }, type: 'Opaque', data: { config: Buffer.from(access.kubeconfig).toString('base64') } });
  });
  console.log(`setup: ${CLUSTERS} logical clusters and kubeconfig Secrets in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  collect();
  const before = process.memoryUsage();
  const cache = new RemoteClusterCache({
    client: kcp,
    kubeconfigFor: (cluster) => ({ namespace: NAMESPACE, name: `kubeconfig-${cluster}` }),
    idleSocketTimeoutMs: 10 * 60_000, // longer than the run: the budget alone bounds the sockets here
  });

  let peakSockets = 0;
  const rounds: Record<string, number>[] = [];
  const cpuStart = process.cpuUsage();
  const t1 = performance.now();
  for (let round = 1; round <= ROUNDS; round++) {
    let done = 0;
    const startTls = { ...tlsCounts };
    const startRequests = server.requestCount();
    const startCpu = process.cpuUsage();
    t0 = performance.now();
    await forEachLimited(names, CONCURRENCY, async (name) => {
      const client = cache.client(name);
      await client.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'default' });
      await client.list({ apiVersion: 'apps/v1', kind: 'Deployment' }, { namespace: 'kube-system', limit: 1, singlePage: true });
      if (++done % 500 === 0) peakSockets = Math.max(peakSockets, cache.openSockets().total);
    });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(startCpu);
    const r = {
      round,
      seconds: Number(seconds.toFixed(2)),
      cpuSeconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(1)),
      requestsPerCluster: Number(((server.requestCount() - startRequests) / CLUSTERS).toFixed(2)),
      tlsConnections: tlsCounts.connections - startTls.connections,
      tlsResumed: tlsCounts.resumed - startTls.resumed,
      tlsContexts: tlsCounts.contexts - startTls.contexts,
    };
    rounds.push(r);
    console.log(
      `round ${round}: ${CLUSTERS} clusters, a GET and a list each${round === 1 ? ' (plus the Secret read and discovery per new client)' : ''}, ${CONCURRENCY} at once, ` +
        `in ${seconds.toFixed(1)} s (${Math.round(CLUSTERS / seconds)} clusters/s, ${r.cpuSeconds} s CPU); ${r.requestsPerCluster} requests per cluster; ` +
        `TLS connections ${r.tlsConnections} (${r.tlsResumed} resumed), TLS contexts built ${r.tlsContexts}`,
    );
  }
  const seconds = (performance.now() - t1) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await new Promise((r) => setTimeout(r, 200)); // let the last answers' sockets turn idle and the budget apply
  const sockets = cache.openSockets();
  const stats = cache.stats();

  collect();
  const after = process.memoryUsage();
  const perClientHeap = (after.heapUsed - before.heapUsed) / stats.clients;
  const perClientTotal = (after.heapUsed + after.external - before.heapUsed - before.external) / stats.clients;

  console.log(`all rounds: ${seconds.toFixed(1)} s, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU`);
  console.log(`cached clients: ${stats.clients}, builds: ${stats.builds}`);
  console.log(`open sockets (client side): ${sockets.total} (active ${sockets.active}, idle ${sockets.idle}, watches ${sockets.watches}); sampled peak ${peakSockets}`);
  console.log(`sockets closed by the budget: ${stats.socketsClosedByBudget}, by the idle timeout: ${stats.socketsClosedByIdleTimeout}`);
  console.log(`memory per cached client: ${(perClientHeap / 1024).toFixed(1)} KiB heap, ${(perClientTotal / 1024).toFixed(1)} KiB heap + external`);
  console.log(`process: heap ${mib(after.heapUsed)}, rss ${mib(after.rss)}`);
  console.log(
    JSON.stringify({
      clusters: CLUSTERS,
      rounds,
      seconds: Number(seconds.toFixed(2)),
      openSockets: sockets.total,
      peakSockets,
      socketsClosedByBudget: stats.socketsClosedByBudget,
      bytesPerClientHeap: Math.round(perClientHeap),
      bytesPerClientHeapAndExternal: Math.round(perClientTotal),
    }),
  );

  cache.close();
  kcp.close();
  await server.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
