// npm run bench:modules — N runtimes (default 1,000) with 5 modules each, one process: time until
// every Kyma is Ready, API requests per module installed, peak memory, and the request rate in
// steady state (nothing changes: it should be small, no periodic re-apply of unchanged manifests).
// Module manifests come from an in-memory fetcher (one ConfigMap per module), so the figures
// measure the control plane, not registry downloads or module size.
import os from 'node:os';
import { Kyma, type KymaObject } from '../src/api/operator/index.js';
import { NS, startKymaEnv } from '../test/lifecycle/kyma-env.js';

const count = Number(process.argv[2] ?? 1000);
const MODULES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const STEADY_SECONDS = Number(process.argv[3] ?? 30);

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, node ${process.version}; ${count} runtimes x ${MODULES.length} modules`);
  // Upstream's requeue intervals for Ready (30 s): steady state is what production would see.
  // The controllers' KCP client gets a high client-side rate limit (a deployment sets it by flag);
  // the default 50 QPS would make this a benchmark of the limiter.
  const env = await startKymaEnv({
    kymaIntervals: { readyMs: 30_000, busyMs: 1_000, warningMs: 30_000, errorMs: 2_000 },
    manifestIntervals: { successMs: 30_000, busyMs: 1_000, errorMs: 2_000, warningMs: 30_000 },
    remoteRequestTimeoutMs: 10_000,
  }, { qps: 2000, burst: 4000 });
  for (const m of MODULES) await env.publish(m, ['1.0.0']);
  const server = env.api.server;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const before = server.requestCount();
  const t0 = performance.now();
  const modules = MODULES.map((name) => ({ name }));
  for (let i = 0; i < count; i += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => env.runtime(`kyma-${String(i + j).padStart(5, '0')}`, { modules })));
  }
  let ready = 0;
  let polls = 0;
  let lastPrint = 0;
  while (ready < count) {
    await new Promise((r) => setTimeout(r, 1000));
    polls++;
    const kymas = (await env.kcp.list<KymaObject>(Kyma, { namespace: NS })).items;
    ready = kymas.filter((k) => k.status?.state === 'Ready' && (k.status.modules ?? []).length === MODULES.length).length;
    if (performance.now() - lastPrint > 10_000) {
      console.log(`  ... ${ready}/${count} Kymas Ready after ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      lastPrint = performance.now();
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const installRequests = server.requestCount() - before - polls;
  console.log(`${count} Kymas with ${MODULES.length} modules Ready in ${seconds.toFixed(1)} s`);
  console.log(`API requests per module installed (KCP + runtime clusters, runtime setup included): ${(installRequests / (count * MODULES.length)).toFixed(1)}`);
  const steadyStart = server.requestCount();
  await new Promise((r) => setTimeout(r, STEADY_SECONDS * 1000));
  const steady = (server.requestCount() - steadyStart) / STEADY_SECONDS;
  console.log(`steady state: ${steady.toFixed(1)} requests/s for ${count} runtimes (${((steady / count) * 60).toFixed(2)} per runtime per minute) over ${STEADY_SECONDS} s`);
  clearInterval(sampler);
  console.log(`peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
  await env.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
