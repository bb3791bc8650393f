// npm run bench:rotation — kubeconfig rotation under load: the landscape as `kcp up` runs it (as
// bench:fleet), N Runtimes created with Kymas enabling 5 modules each; as soon as every runtime has
// its kubeconfig (all GardenerClusters Ready), and while the lifecycle manager is installing the
// modules, every kubeconfig is forced at once (the force-rotation annotation on all GardenerClusters).
// Every status update of Runtimes, GardenerClusters, Kymas and Manifests is watched until the fleet
// converged: any Error or Failed seen is reported (and fails the run).
//
// Ends with one JSON line. Options: --runtimes N (1,000), --converge-timeout SECONDS (3,600); any
// other `--flag value` is a controller flag of `kcp up` (printed as a deviation from production).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { AnnotationForceKubeconfigRotation, AnnotationKubeconfigSha256, GardenerCluster, LabelKymaManagedBy, ManagedByInfrastructureManager } from '../src/api/infrastructuremanager/index.js';
import { parseArgs } from '../src/cli/args.js';
import { clientLimitsFrom, controlPlaneConfigFrom, FlagReader, flagTableOf } from '../src/cli/controller-flags.js';
import { UP_FLAGS } from '../src/cli/up.js';
import type { KubeObject } from '../src/kube/object.js';
import { Informer } from '../src/runtime/cache/informer.js';
import { clientFromKubeconfig } from '../src/runtime/client/index.js';
import { sleep } from '../src/util/sleep.js';
import { startUp } from '../src/up/index.js';
import { controllerFlags, FleetWatch, machineLine, memoryOf, MODULES, NS, statsReader } from './fleet-common.js';
import { writeFleetModules } from './fleet-modules.js';
import { printSettings } from './settings.js';
import { CpuWindow, option, reconcileDelta, reconcilesByController } from './stats.js';

const runtimes = option('--runtimes', 'ROTATION_BENCH_RUNTIMES', 1000);
const convergeTimeoutSeconds = option('--converge-timeout', 'ROTATION_BENCH_CONVERGE_TIMEOUT', 3600);

/** What the benchmark keeps of a GardenerCluster or a kubeconfig Secret. */
type Slim = KubeObject & { status?: { state?: string } };
const slim = (o: KubeObject): Slim => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  metadata: { name: o.metadata.name, namespace: o.metadata.namespace, annotations: o.metadata.annotations },
  status: { state: (o as Slim).status?.state },
});

async function waitUntil(what: string, done: () => boolean, timeoutSeconds: number): Promise<number> {
  const t0 = performance.now();
  while (!done()) {
    if (performance.now() - t0 > timeoutSeconds * 1000) throw new Error(`${what}: not within ${timeoutSeconds} s`);
    await sleep(100);
  }
  return (performance.now() - t0) / 1000;
}

async function main(): Promise<void> {
  const { argv, deviations } = controllerFlags(new Set(['--runtimes', '--converge-timeout']));
  const flags = new FlagReader(parseArgs(argv, flagTableOf(UP_FLAGS), { lastWins: true }), UP_FLAGS, 'bench:rotation');
  console.log(machineLine());
  console.log(`rotation under load: ${runtimes} runtimes x ${MODULES.length} modules; every kubeconfig forced at once while the modules install`);
  printSettings({ ...Object.fromEntries(Object.entries(deviations).map(([k, v]) => [`--${k}`, v])) });

  const work = mkdtempSync(join(os.tmpdir(), 'kcp-bench-rotation-'));
  writeFleetModules(join(work, 'modules'), MODULES);
  const up = await startUp({ dataDir: join(work, 'data'), port: 0, catalogDir: join(work, 'modules'), landscapeMode: 'process', logLevel: flags.level(), controlPlane: controlPlaneConfigFrom(flags, NS), ...clientLimitsFrom(flags) });
  const info = up.landscapeInfo;
  const kcpKubeconfig = readFileSync(info.files.kcpKubeconfig, 'utf8');
  const kcp = clientFromKubeconfig(kcpKubeconfig, { qps: 0 });
  const stats = statsReader(kcpKubeconfig);
  const fleet = new FleetWatch(kcp, runtimes);
  await fleet.start();
  const lifetime = new AbortController();
  const clusters = new Informer<Slim>(kcp, { kind: GardenerCluster, namespace: NS, transform: slim });
  const secrets = new Informer<Slim>(kcp, { kind: { apiVersion: 'v1', kind: 'Secret' }, namespace: NS, labelSelector: `${LabelKymaManagedBy}=${ManagedByInfrastructureManager}`, transform: slim });
  for (const inf of [clusters, secrets]) {
    inf.run(lifetime.signal).catch((e: unknown) => console.error(`informer ${inf.kind.kind} failed`, e));
    await inf.synced;
  }
  const errors = new Map<string, number>();
  const seen = (e: string): void => void errors.set(e, (errors.get(e) ?? 0) + 1);
  fleet.watchErrors(seen);
  clusters.addHandlers({ onUpdate: (_old, gc) => (gc.status?.state === 'Error' ? seen(`GardenerCluster ${gc.metadata.name ?? ''}: Error`) : undefined) });

  const cpu = new CpuWindow();
  const reconciles0 = reconcilesByController(up.controlPlane.manager.registry.render());
  const requests0 = await stats();
  const t0 = performance.now();
  await fleet.createFleet();
  const allClustersReady = () => clusters.store.list().filter((gc) => gc.status?.state === 'Ready').length === runtimes;
  await waitUntil('every GardenerCluster Ready', allClustersReady, convergeTimeoutSeconds);
  const kubeconfigsAt = (performance.now() - t0) / 1000;
  const installing = runtimes * MODULES.length - fleet.readyManifests();
  const shaBefore = new Map(secrets.store.list().map((s) => [s.metadata.name ?? '', s.metadata.annotations?.[AnnotationKubeconfigSha256]]));
  console.log(`every runtime has its kubeconfig after ${kubeconfigsAt.toFixed(1)} s; ${installing}/${runtimes * MODULES.length} Manifests not yet Ready; forcing ${runtimes} rotations`);

  const f0 = performance.now();
  const names = clusters.store.list().map((gc) => gc.metadata.name ?? '');
  for (let i = 0; i < names.length; i += 100) {
    await Promise.all(names.slice(i, i + 100).map((name) => kcp.patch(GardenerCluster, { namespace: NS, name }, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: 'true' } } })));
  }
  const forcedSeconds = (performance.now() - f0) / 1000;
  const rotated = () => secrets.store.list().filter((s) => shaBefore.has(s.metadata.name ?? '') && s.metadata.annotations?.[AnnotationKubeconfigSha256] !== shaBefore.get(s.metadata.name ?? '')).length;
  const rotateSeconds = await waitUntil('every kubeconfig rotated', () => rotated() === shaBefore.size, convergeTimeoutSeconds) + forcedSeconds;
  console.log(`annotated in ${forcedSeconds.toFixed(1)} s; all ${shaBefore.size} kubeconfigs replaced ${rotateSeconds.toFixed(1)} s after the first annotation; ${fleet.readyManifests()}/${runtimes * MODULES.length} Manifests Ready by then`);

  await fleet.converge(t0, convergeTimeoutSeconds, () => `controllers ${memoryOf(process.pid).rssMiB.toFixed(0)} MiB, API server ${memoryOf(info.pid).rssMiB.toFixed(0)} MiB`);
  const convergeSeconds = (performance.now() - t0) / 1000;
  const requests = (await stats()) - requests0;
  console.log(`converged in ${convergeSeconds.toFixed(1)} s; ${requests} API requests (the benchmark's own informers included); ${cpu.text()}`);
  console.log(`  reconciles: ${reconcileDelta(reconciles0, reconcilesByController(up.controlPlane.manager.registry.render()))}`);
  console.log(`error statuses seen while rotating and converging: ${errors.size === 0 ? 'none' : [...errors].map(([e, n]) => `${e} (x${n})`).join('; ')}`);

  lifetime.abort();
  fleet.stop();
  kcp.close();
  await up.stop();
  rmSync(work, { recursive: true, force: true });
  console.log(JSON.stringify({ runtimes, modules: MODULES.length, manifestsInstallingAtRotation: installing, rotateAllSeconds: Number(rotateSeconds.toFixed(1)), convergeSeconds: Number(convergeSeconds.toFixed(1)), errorStatuses: errors.size }));
  if (errors.size > 0) process.exit(1);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
