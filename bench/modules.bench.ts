// npm run bench:modules — N runtimes (default 1,000) with 5 modules each, one process: time until
// every Kyma is Ready, API requests per module installed, peak memory, and the request rate in
// steady state (nothing changes: it should be small, no periodic re-apply of unchanged manifests).
// Built on the product: the in-memory landscape, runtime clusters attached without Gardener (the
// kubeconfig Secrets the infrastructure manager would write), five small modules (one ConfigMap
// each) pushed into the landscape's in-process OCI registry as `kcp module push` would, and the
// control plane's composition root with the lifecycle manager.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Kyma, type KymaObject, Labels, Namespaces } from '../src/api/operator/index.js';
import { type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../src/controlplane/index.js';
import { publishCatalog } from '../src/landscape/catalog.js';
import { startInMemoryLandscape } from '../src/landscape/in-memory.js';
import { startInProcessRegistry } from '../src/landscape/registry.js';
import { attachRuntimeCluster } from '../src/landscape/runtime-cluster.js';
import { clientFromKubeconfig } from '../src/runtime/client/index.js';
import { silentLogger } from '../src/runtime/log.js';
import { sleep } from '../src/util/sleep.js';
import { printSettings } from './settings.js';

const count = Number(process.argv[2] ?? 1000);
const MODULES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const STEADY_SECONDS = Number(process.argv[3] ?? 30);
const NS = Namespaces.ControlPlane;

// Deviations from production settings, printed with the figures. Ready and Warning requeues stay at
// upstream's 30 s, so the steady state is what production would see; the busy requeues are shorter
// so that install waits do not dominate. The controllers' KCP client gets a high client-side rate
// limit (a deployment sets it by flag); the default 50 QPS would make this a benchmark of the limiter.
const CONTROLLERS: Partial<ControlPlaneConfig> = {
  infrastructureManager: false,
  kymaIntervals: { readyMs: 30_000, busyMs: 1_000, warningMs: 30_000, errorMs: 2_000 },
  manifestIntervals: { successMs: 30_000, busyMs: 1_000, errorMs: 2_000, warningMs: 30_000 },
};
const KCP_CLIENT = { qps: 2000, burst: 4000, retries: 1 };

/** Module directories as `kcp module push` reads them: one ConfigMap per module, channel regular. */
function writeModules(dir: string): void {
  for (const name of MODULES) {
    const versionDir = join(dir, name, '1.0.0');
    mkdirSync(versionDir, { recursive: true });
    writeFileSync(join(versionDir, 'module.yaml'), `name: ${name}\nversion: 1.0.0\nchannels: [regular]\n`);
    writeFileSync(join(versionDir, 'manifest.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-info\n  namespace: kyma-system\ndata:\n  module: ${name}\n  version: 1.0.0\n`);
  }
}

async function main(): Promise<void> {
  console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'CPU'}, node ${process.version}; ${count} runtimes x ${MODULES.length} modules`);
  printSettings({ controlPlane: CONTROLLERS, controllersKcpClient: KCP_CLIENT, endpoints: 'no /metrics or probes listeners', runtimes: 'attached without Gardener (no provisioning)', registry: 'in-process' });
  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-modules-'));
  const land = await startInMemoryLandscape();
  const registry = await startInProcessRegistry({ storage: join(work, 'registry'), port: 0 });
  writeModules(join(work, 'modules'));
  await publishCatalog(land.kcp, registry, join(work, 'modules'));
  const kcp = clientFromKubeconfig(land.kcpKubeconfig, KCP_CLIENT);
  const cp = await startControlPlane({ config: { ...defaultControlPlaneConfig(), ...CONTROLLERS }, kcp, logger: silentLogger });
  await cp.ready();

  const server = land.server;
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 200);
  const before = server.requestCount();
  const t0 = performance.now();
  const modules = MODULES.map((name) => ({ name }));
  const runtime = async (id: string): Promise<void> => {
    await attachRuntimeCluster(server, land.kcp, id);
    await land.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id } }, spec: { channel: 'regular', modules } });
  };
  for (let i = 0; i < count; i += 25) {
    await Promise.all(Array.from({ length: Math.min(25, count - i) }, (_, j) => runtime(`kyma-${String(i + j).padStart(5, '0')}`)));
  }
  let ready = 0;
  let polls = 0;
  let lastPrint = 0;
  while (ready < count) {
    await sleep(1000);
    polls++;
    const kymas = (await land.kcp.list<KymaObject>(Kyma, { namespace: NS })).items;
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
  await sleep(STEADY_SECONDS * 1000);
  const steady = (server.requestCount() - steadyStart) / STEADY_SECONDS;
  console.log(`steady state: ${steady.toFixed(1)} requests/s for ${count} runtimes (${((steady / count) * 60).toFixed(2)} per runtime per minute) over ${STEADY_SECONDS} s`);
  clearInterval(sampler);
  console.log(`peak RSS: ${(peakRss / 2 ** 20).toFixed(0)} MiB`);
  await cp.stop();
  kcp.close();
  await registry.stop();
  await land.stop();
  rmSync(work, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
