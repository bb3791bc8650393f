// API faults in a small fleet (issue 15; bench:faults is the same at fleet size): the whole landscape
// as `kcp up` runs it, 12 runtimes with one module. Six of them get one fault each on their runtime
// cluster (server errors, throttling with Retry-After, dropped watches, 410 Gone on resume, latency,
// unreachable) while the module is upgraded fleet-wide through its channel. The healthy runtimes take
// the upgrade; those with a fault the controllers ride out take it too, the others are Error with
// a reason naming the fault, counted in the metrics and logged at warn (never error); once the faults
// lift every runtime takes the upgrade.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Kyma, type KymaObject, Labels, Manifest, type ManifestObject, ModuleReleaseMeta, Namespaces } from '../../src/api/operator/index.js';
import { shootClusterName } from '../../src/landscape/index.js';
import { RUNTIME_FAULT_KINDS, runtimeFault, type RuntimeFaultKind, SURVIVABLE_FAULTS } from '../../src/landscape/runtime-faults.js';
import { Informer } from '../../src/runtime/cache/informer.js';
import { clientFromKubeconfig } from '../../src/runtime/client/index.js';
import { testRuntime } from '../infrastructure/runtime-harness.js';
import { upForSuite } from '../support/fast-landscape.js';
import { RecordingLogger } from '../support/log.js';
import { counterValue } from '../support/metrics.js';
import { waitFor } from '../support/wait.js';

const NS = Namespaces.ControlPlane;
const MODULE = 'autoscaler';
/** The demo catalog's autoscaler: 1.0.0 in channel regular, 1.1.0 in fast; the change moves regular to 1.1.0. */
const OLD = '1.0.0';
const NEW = '1.1.0';
const HEALTHY = ['ok-1', 'ok-2', 'ok-3', 'ok-4', 'ok-5', 'ok-6'];
const faulted = (kind: RuntimeFaultKind) => `f-${kind}`;
/** What a Kyma that the controllers could not reach says, per fault that is not ridden out. */
const FAILING: Partial<Record<RuntimeFaultKind, { reason: string; operation: RegExp }>> = {
  'server-errors': { reason: 'ServerError', operation: /runtime cluster of Kyma f-server-errors answers with server errors \((500 InternalError|503 ServiceUnavailable)\)/ },
  unreachable: { reason: 'Unreachable', operation: /runtime cluster of Kyma f-unreachable is unreachable/ },
};

/** The Kyma is Ready with the module at `version`, Ready, and its Manifest too. */
function upgraded(kyma: KymaObject | undefined, manifest: ManifestObject | undefined, version: string): boolean {
  const m = kyma?.status?.modules?.find((x) => x.name === MODULE);
  return kyma?.status?.state === 'Ready' && m?.version === version && m.state === 'Ready' && manifest?.spec.version === version && manifest.status?.state === 'Ready';
}

describe('API faults in a fleet', () => {
  const suite = upForSuite('kcp-api-faults-');

  it('healthy runtimes take a fleet-wide upgrade while others are faulted; each fault is reported as it is; all recover', async () => {
    const log = new RecordingLogger('warn');
    const up = await suite.start({ logger: log });
    const land = up.landscape;
    const metrics = () => up.controlPlane.manager.registry;
    const ids = [...HEALTHY, ...RUNTIME_FAULT_KINDS.map(faulted)];
    for (const id of ids) {
      await land.kcp.create(testRuntime(id));
      await land.kcp.create<KymaObject>({
        apiVersion: Kyma.apiVersion,
        kind: Kyma.kind,
        metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id, 'kyma-project.io/runtime-id': id } },
        spec: { channel: 'regular', modules: [{ name: MODULE }] },
      });
    }
    const state = async () => {
      const kymas = new Map((await land.kcp.list<KymaObject>(Kyma, { namespace: NS })).items.map((k) => [k.metadata.name ?? '', k]));
      const manifests = new Map((await land.kcp.list<ManifestObject>(Manifest, { namespace: NS })).items.map((m) => [m.metadata.labels?.[Labels.KymaName] ?? '', m]));
      return { kymas, manifests, upgraded: (id: string, version: string) => upgraded(kymas.get(id), manifests.get(id), version) };
    };
    await waitFor('every runtime Ready with the module', async () => {
      const s = await state();
      return ids.every((id) => s.upgraded(id, OLD));
    }, 120_000);

    // Runtime-side watches of the runtime Kyma (what a runtime admin's tool or an operator in the
    // runtime holds) in the runtimes whose watches are cut: they see the upgrade's status mirrored.
    const clusterOf = (id: string) => shootClusterName(land.projectNamespace, `c-${id}`);
    const watching = new Map(
      (['dropped-watches', 'gone-on-resume'] as const).map((kind) => {
        const client = clientFromKubeconfig(land.server.clusterAccess(clusterOf(faulted(kind))).kubeconfig, { qps: 0 });
        const informer = new Informer<KymaObject>(client, { kind: Kyma, namespace: Namespaces.Remote });
        informer.run(suite.lifetime).catch(() => undefined);
        return [kind, { client, informer }] as const;
      }),
    );
    for (const { informer } of watching.values()) await informer.synced;

    // The faults, then the upgrade: channel regular of the module moves to the new version.
    const errorsBefore = counterValue(metrics(), 'controller_runtime_reconcile_errors_total', { controller: 'kyma' });
    const recordsBefore = log.records.length;
    for (const kind of RUNTIME_FAULT_KINDS) land.server.setFaults(clusterOf(faulted(kind)), runtimeFault(kind, { latencyMs: 500 }));
    await land.kcp.patch(ModuleReleaseMeta, { namespace: NS, name: MODULE }, 'merge', { spec: { channels: [{ channel: 'regular', version: NEW }, { channel: 'fast', version: NEW }] } });

    const survivable = RUNTIME_FAULT_KINDS.filter((k) => SURVIVABLE_FAULTS.has(k));
    const failing = RUNTIME_FAULT_KINDS.filter((k) => !SURVIVABLE_FAULTS.has(k));
    const faultedState = await waitFor('the healthy runtimes and those with survivable faults upgraded, the others Error', async () => {
      const s = await state();
      const done = [...HEALTHY, ...survivable.map(faulted)].every((id) => s.upgraded(id, NEW)) && failing.every((k) => s.kymas.get(faulted(k))?.status?.state === 'Error');
      return done ? s : undefined;
    }, 120_000);

    // While faulted: each failing runtime's Kyma names its fault; its Manifest was left as it was.
    for (const kind of failing) {
      const id = faulted(kind);
      const kyma = faultedState.kymas.get(id);
      assert.match(kyma?.status?.lastOperation?.operation ?? '', FAILING[kind]!.operation, `${id}: ${kyma?.status?.lastOperation?.operation}`);
      assert.equal(faultedState.manifests.get(id)?.spec.version, OLD, `${id}: the upgrade waits for the runtime`);
      // Upstream's reason for a runtime that cannot be used; how it failed is counted beside it.
      assert.ok(counterValue(metrics(), 'lifecycle_mgr_requeue_reason_total', { requeue_reason: 'sync_context_retrieval', requeue_type: 'unexpected' }) > 0, 'sync_context_retrieval counted');
      assert.ok(counterValue(metrics(), 'lifecycle_mgr_runtime_access_errors_total', { controller: 'kyma', reason: FAILING[kind]!.reason }) > 0, `${FAILING[kind]!.reason} counted`);
      const warned = log.records.slice(recordsBefore).filter((r) => r.level === 'warn' && r.msg === 'Kyma state changed' && r.fields.kyma === id && r.fields.to === 'Error');
      assert.ok(warned.length > 0, `${id}: its Error logged at warn`);
      assert.match(String(warned[0].fields.reason), FAILING[kind]!.operation);
    }
    assert.ok(counterValue(metrics(), 'controller_runtime_reconcile_errors_total', { controller: 'kyma' }) > errorsBefore, 'the Kyma controller counted its failed reconciles');

    // The faults were hit: each runtime's API server injected what it was told to.
    const counts = Object.fromEntries(RUNTIME_FAULT_KINDS.map((k) => [k, land.server.faultCounts(clusterOf(faulted(k)))]));
    assert.ok((counts['server-errors'].errors['500'] ?? 0) + (counts['server-errors'].errors['503'] ?? 0) > 0, 'server errors answered');
    assert.ok((counts.throttled.errors['429'] ?? 0) > 0, 'the throttled runtime answered 429s, and the controllers waited them out');
    assert.ok(counts.latency.delayed > 0, 'requests to the slow runtime were delayed');
    assert.ok(counts.unreachable.connectionsCut > 0, 'connections to the unreachable runtime cut');
    // The runtime-side watches were cut (and resumed into 410 Gone) while they saw the upgrade arrive.
    for (const [kind, { informer }] of watching) {
      await waitFor(`${kind}: the runtime Kyma's mirrored status shows the upgrade`, () =>
        informer.store.list().some((k) => k.status?.modules?.some((m) => m.name === MODULE && m.version === NEW && m.state === 'Ready')),
      );
      assert.ok(land.server.faultCounts(clusterOf(faulted(kind))).watchesDropped > 0, `${kind}: watches were cut`);
      assert.ok(informer.stats.watches > 1, `${kind}: the watch was opened again (${informer.stats.watches} watches)`);
    }
    assert.ok(land.server.faultCounts(clusterOf(faulted('gone-on-resume'))).resumesForgotten > 0, 'a resume got 410 Gone');
    assert.ok(watching.get('gone-on-resume')!.informer.stats.gone > 0, 'the informer relisted after 410 Gone');

    // The survivable faults made nothing Error, and nothing was logged at error level.
    const faultWindow = log.records.slice(recordsBefore);
    for (const kind of survivable) {
      const errors = faultWindow.filter((r) => (r.fields.kyma === faulted(kind) || String(r.fields.manifest ?? '').includes(faulted(kind))) && r.fields.to === 'Error');
      assert.deepEqual(errors, [], `${faulted(kind)} never Error`);
    }
    assert.deepEqual(faultWindow.filter((r) => r.level === 'error'), [], 'nothing logged at error: every failure is in a status');

    // The faults lift: every runtime takes the upgrade.
    for (const kind of RUNTIME_FAULT_KINDS) land.server.setFaults(clusterOf(faulted(kind)), undefined);
    await waitFor('every runtime upgraded', async () => {
      const s = await state();
      return ids.every((id) => s.upgraded(id, NEW));
    }, 120_000);
    for (const { client } of watching.values()) client.close();
  });
});
