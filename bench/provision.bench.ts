// npm run bench:provision — provisions N runtimes (default 1,000) through the Gardener simulator:
// time until every Runtime is Ready, API requests per runtime, peak memory. Built on the product:
// the in-memory landscape, the control plane's composition root with the infrastructure manager,
// and the Runtimes `kcp runtime create` builds.
import os from 'node:os';
import { Runtime, type RuntimeObject } from '../src/api/infrastructuremanager/index.js';
import { Namespaces } from '../src/api/operator/index.js';
import { buildRuntimeAndKyma } from '../src/cli/runtime-spec.js';
import { type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../src/controlplane/index.js';
import { startInMemoryLandscape } from '../src/landscape/in-memory.js';
import { clientFromKubeconfig } from '../src/runtime/client/index.js';
import { silentLogger } from '../src/runtime/log.js';
import { readConverterConfig } from '../src/up/index.js';
import { sleep } from '../src/util/sleep.js';
import { runtimeRequest } from './fleet-common.js';
import { printSettings } from './settings.js';

const count = Number(process.argv[2] ?? 1000);

// Deviations from production settings, printed with the figures: short simulated Gardener
// operations and Runtime requeues, so that the figures measure the control plane, not the waits.
const SIMULATOR = { pendingMs: 100, createMs: 300, reconcileMs: 200, deleteMs: 200, progressSteps: 2, concurrency: 32 };
const CONTROLLERS: Partial<ControlPlaneConfig> = {
  lifecycleManager: false,
  gardenerRequeueMs: 300,
  controlPlaneRequeueMs: 200,
  runtimeTiming: { statusRequeueMs: 20 },
  kubeconfigExpirationSeconds: 3600,
};
const CLIENTS = { qps: 0 };

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, node ${process.version}; ${count} runtimes`);
  printSettings({ simulator: SIMULATOR, controlPlane: CONTROLLERS, controllersKcpAndGardenClients: CLIENTS, endpoints: 'no /metrics or probes listeners' });
  const land = await startInMemoryLandscape({ simulator: SIMULATOR });
  const kcp = clientFromKubeconfig(land.kcpKubeconfig, CLIENTS);
  const garden = clientFromKubeconfig(land.gardenKubeconfig, CLIENTS);
  const cp = await startControlPlane({
    config: { ...defaultControlPlaneConfig(), ...CONTROLLERS },
    kcp,
    garden,
    gardenerProject: land.project,
    converterConfig: readConverterConfig(),
    logger: silentLogger,
  });
  await cp.ready();
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const requestsBefore = land.server.requestCount();
  const t0 = performance.now();
  const runtime = (i: number): RuntimeObject => buildRuntimeAndKyma(runtimeRequest(i), Namespaces.ControlPlane).runtime;
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => land.kcp.create(runtime(i + j))));
  }
  let ready = 0;
  let lastPrint = 0;
  let polls = 0;
  while (ready < count) {
    await sleep(500);
    polls++;
    const list = await land.kcp.list<RuntimeObject>(Runtime, { namespace: Namespaces.ControlPlane });
    ready = list.items.filter((r) => r.status?.state === 'Ready').length;
    const failed = list.items.filter((r) => r.status?.state === 'Failed');
    if (failed.length > 0) throw new Error(`${failed.length} runtimes Failed, e.g. ${JSON.stringify(failed[0].status?.conditions)}`);
    if (performance.now() - lastPrint > 5000) {
      console.log(`  ... ${ready}/${count} Ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      lastPrint = performance.now();
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  // The benchmark's own requests are counted out: one list per poll.
  const requests = land.server.requestCount() - requestsBefore - polls;
  clearInterval(sampler);
  console.log(`${count} runtimes Ready in ${seconds.toFixed(1)} s (${(count / seconds).toFixed(1)} per second)`);
  console.log(`API requests per runtime (KCP + garden + runtime clusters): ${(requests / count).toFixed(1)}`);
  console.log(`peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MiB (server, simulator and controllers in one process)`);
  await cp.stop();
  kcp.close();
  garden.close();
  await land.stop();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
