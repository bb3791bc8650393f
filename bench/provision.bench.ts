// npm run bench:provision — provisions N runtimes (default 1,000) through the Gardener simulator
// with low simulated delays: time until every Runtime is Ready, API requests per runtime, peak memory.
import os from 'node:os';
import { Runtime, type RuntimeObject } from '../src/api/infrastructuremanager/index.js';
import { defaultControlPlaneConfig, startControlPlane } from '../src/controlplane/index.js';
import { silentLogger } from '../src/runtime/log.js';
import { Registry } from '../src/runtime/metrics.js';
import { converterConfig, fastTiming, testRuntime } from '../test/infrastructure/runtime-harness.js';
import { startLandscape } from '../test/support/landscape.js';

const count = Number(process.argv[2] ?? 1000);

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, node ${process.version}; ${count} runtimes`);
  const land = await startLandscape({
    // Short simulated Gardener operations: the benchmark measures the control plane, not the waits.
    simulator: { pendingMs: 100, createMs: 300, reconcileMs: 200, deleteMs: 200, progressSteps: 2, concurrency: 32 },
  });
  const im = await startControlPlane({
    config: {
      ...defaultControlPlaneConfig(),
      lifecycleManager: false,
      gardenerRequeueMs: fastTiming.gardenerRequeueMs,
      controlPlaneRequeueMs: fastTiming.controlPlaneRequeueMs,
      runtimeTiming: fastTiming,
      kubeconfigExpirationSeconds: 3600,
    },
    kcp: land.kcp,
    garden: land.garden,
    gardenerProject: land.project,
    converterConfig: converterConfig(),
    registry: new Registry(),
    logger: silentLogger,
  });
  await im.ready();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const requestsBefore = land.server.requestCount();
  const t0 = performance.now();
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => land.kcp.create(testRuntime(`rt-${String(i + j).padStart(5, '0')}`))));
  }
  let ready = 0;
  let lastPrint = 0;
  while (ready < count) {
    await new Promise((r) => setTimeout(r, 500));
    const list = await land.kcp.list<RuntimeObject>(Runtime, { namespace: 'kcp-system' });
    ready = list.items.filter((r) => r.status?.state === 'Ready').length;
    const failed = list.items.filter((r) => r.status?.state === 'Failed');
    if (failed.length > 0) throw new Error(`${failed.length} runtimes Failed, e.g. ${JSON.stringify(failed[0].status?.conditions)}`);
    if (performance.now() - lastPrint > 5000) {
      console.log(`  ... ${ready}/${count} Ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      lastPrint = performance.now();
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  // The benchmark's own polling is counted out: one list every 500 ms.
  const polls = Math.ceil((seconds * 1000) / 500);
  const requests = land.server.requestCount() - requestsBefore - polls;
  clearInterval(sampler);
  console.log(`${count} runtimes Ready in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(1)} per second)`);
  console.log(`API requests per runtime (KCP + garden + runtime clusters): ${(requests / count).toFixed(1)}`);
  console.log(`peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MiB (server, simulator and controllers in one process)`);
  await im.stop();
  await land.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
