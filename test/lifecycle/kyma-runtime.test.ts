// Kyma controller scenarios about the runtime cluster: the module catalog synced by beta/internal
// labels, the runtime Kyma and CRDs restored after deletion there, a kubeconfig Secret waited for
// (Processing) while missing, a broken one or a runtime answering 503 reported (Error) and recovered
// from, and deprovisioning with or without a runtime.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, LabelValues, ModuleReleaseMeta, ModuleTemplate, Namespaces, type KymaObject } from '../../src/api/operator/index.js';
import { isNotFound } from '../../src/runtime/client/index.js';
import { clientFromKubeconfig, type HttpClient } from '../../src/runtime/client/index.js';
import { syncRemoteCrds } from '../../src/lifecycle/remote/crds.js';
import { RecordingLogger } from '../support/log.js';
import { createTestRuntime } from '../support/skr.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from './kyma-env.js';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
const SECRET = { apiVersion: 'v1', kind: 'Secret' };

async function catalogNames(remote: HttpClient): Promise<string[]> {
  const items = (await remote.list(ModuleTemplate, { namespace: Namespaces.Remote })).items;
  return items.map((t) => t.metadata.name ?? '').sort();
}

async function gone(probe: () => Promise<unknown>): Promise<boolean> {
  try {
    await probe();
    return false;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  }
}

describe('Kyma controller: runtime clusters', () => {
  let env: KymaEnv;
  const log = new RecordingLogger();

  before(async () => {
    env = await startKymaEnv({ remoteCleanupTimeoutMs: 1_500, logger: log });
    await env.publish('plain', ['1.0.0'], { channels: { regular: '1.0.0' } });
    await env.publish('beta-module', ['0.1.0'], { channels: { regular: '0.1.0' }, beta: true });
    await env.publish('internal-module', ['0.2.0'], { channels: { regular: '0.2.0' }, internal: true });
  });

  after(() => env.stop());

  it('the catalog reaches the runtime with beta and internal modules only for Kymas labelled for them, and user templates are left alone', async () => {
    const normal = await env.runtime('rt-catalog');
    const labelled = await env.runtime('rt-catalog-beta', {}, { [Labels.Beta]: 'true', [Labels.Internal]: 'true' });
    await waitFor('the plain catalog', async () => (await catalogNames(normal.remote)).join() === 'plain-1.0.0');
    await waitFor('the beta+internal catalog', async () => (await catalogNames(labelled.remote)).join() === 'beta-module-0.1.0,internal-module-0.2.0,plain-1.0.0');
    const metas = (await labelled.remote.list(ModuleReleaseMeta, { namespace: Namespaces.Remote })).items;
    assert.deepEqual(metas.map((m) => m.metadata.labels?.[Labels.ManagedBy]), metas.map(() => LabelValues.LifecycleManager));
    await labelled.remote.create({ apiVersion: ModuleTemplate.apiVersion, kind: ModuleTemplate.kind, metadata: { name: 'mine-1.0.0', namespace: Namespaces.Remote }, spec: { moduleName: 'mine', version: '1.0.0' } });
    await env.kcp.patch(Kyma, { namespace: NS, name: labelled.kymaName }, 'merge', { metadata: { labels: { [Labels.Beta]: null } } });
    await waitFor('beta copies removed, the user template kept', async () => (await catalogNames(labelled.remote)).join() === 'internal-module-0.2.0,mine-1.0.0,plain-1.0.0');
    const kyma = await env.kyma(labelled.kymaName);
    assert.equal(kyma.status?.conditions?.find((c) => c.type === 'ModuleCatalog')?.status, 'True');
  });

  it('a runtime Kyma deleted in the runtime is re-created with its modules', async () => {
    const rt = await env.runtime('rt-recreate', { modules: [{ name: 'plain' }] });
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    const first = await env.remoteKyma(rt);
    await rt.remote.delete(Kyma, { namespace: Namespaces.Remote, name: 'default' });
    const again = await waitFor('the runtime Kyma back', async () => {
      const k = await env.remoteKyma(rt).catch(() => undefined);
      return k && k.metadata.uid !== first.metadata.uid ? k : undefined;
    });
    assert.deepEqual(again.spec.modules?.map((m) => m.name), ['plain']);
    assert.equal(again.metadata.labels?.[Labels.ManagedBy], LabelValues.Kyma);
  });

  it('a CRD deleted in the runtime is applied again', async () => {
    const rt = await env.runtime('rt-crd');
    const name = 'moduletemplates.operator.kyma-project.io';
    await waitFor('the CRD in the runtime', () => rt.remote.get(CRD, { name }));
    await waitFor('the catalog', async () => (await catalogNames(rt.remote)).includes('plain-1.0.0'));
    await rt.remote.delete(CRD, { name });
    await waitFor('the CRD gone', () => gone(() => rt.remote.get(CRD, { name })));
    await waitFor('the CRD and the catalog back', async () => (await catalogNames(rt.remote).catch((): string[] => [])).includes('plain-1.0.0'));
  });

  it("a new runtime's first check writes its namespace, CRDs, catalog copies and runtime Kyma without reading them first", async () => {
    const rt = await createTestRuntime(env.api.server, env.kcp, 'rt-fresh');
    const remote = clientFromKubeconfig(env.api.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
    const seen: { method: string; path: string }[] = [];
    const stop = env.api.server.observeRequests(({ cluster, method, path }) => {
      if (cluster === rt.cluster) seen.push({ method, path });
    });
    try {
      await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'rt-fresh', namespace: NS, labels: { [Labels.KymaName]: 'rt-fresh' } }, spec: { channel: 'regular', modules: [] } });
      await waitFor('Ready', async () => (await env.kyma('rt-fresh')).status?.state === 'Ready');
      // The first check ends with the status mirrored into the runtime Kyma: what came before it.
      await waitFor('the status mirrored', () => seen.some((r) => r.method === 'PATCH' && r.path.endsWith('/namespaces/kyma-system/kymas/default/status')));
      assert.ok((await catalogNames(remote)).includes('plain-1.0.0'), 'the catalog copied');
    } finally {
      stop();
      remote.close();
    }
    const end = seen.findIndex((r) => r.method === 'PATCH' && r.path.endsWith('/namespaces/kyma-system/kymas/default/status'));
    const setUp = /\/namespaces\/kyma-system$|customresourcedefinitions|\/namespaces\/kyma-system\/(kymas|moduletemplates|modulereleasemetas)(\/|$)/;
    const first = seen.slice(0, end).filter((r) => setUp.test(r.path));
    assert.deepEqual(first.filter((r) => r.method === 'GET'), [], 'no read before the writes');
    assert.deepEqual(
      [...new Set(first.map((r) => `${r.method} ${r.path.replace(/^.*\/(namespaces\/kyma-system\/)?/, '')}`))].sort(),
      ['PATCH kyma-system', 'PATCH kymas.operator.kyma-project.io', 'PATCH modulereleasemetas.operator.kyma-project.io', 'PATCH moduletemplates.operator.kyma-project.io', 'PATCH plain', 'PATCH plain-1.0.0', 'POST kymas'].sort(),
      'the namespace, the CRDs and the catalog copies applied, the runtime Kyma created',
    );
  });

  it('a new runtime whose API server establishes CRDs late: the first check waits for them instead of failing', async () => {
    const id = 'rt-late-crds';
    const rt = await createTestRuntime(env.api.server, env.kcp, id);
    // As a real kube-apiserver: a new CRD's resources are served only once its establishing controller set the condition.
    env.api.server.setFaults(rt.cluster, { crdEstablishDelayMs: 300 });
    const seen: { method: string; path: string }[] = [];
    const stop = env.api.server.observeRequests(({ cluster, method, path }) => {
      if (cluster === rt.cluster) seen.push({ method, path });
    });
    try {
      await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id } }, spec: { channel: 'regular', modules: [] } });
      await waitFor('Ready', async () => (await env.kyma(id)).status?.state === 'Ready');
    } finally {
      stop();
      env.api.server.setFaults(rt.cluster, undefined);
    }
    const createdAt = seen.findIndex((r) => r.method === 'POST' && r.path.endsWith('/namespaces/kyma-system/kymas'));
    assert.ok(createdAt > 0, 'the runtime Kyma was created');
    assert.ok(
      seen.slice(0, createdAt).some((r) => r.method === 'GET' && r.path.endsWith('/customresourcedefinitions/kymas.operator.kyma-project.io')),
      'the Kyma CRD was read until Established, before the runtime Kyma was created',
    );
    // Before, the runtime Kyma's create failed with 404 and the check was retried with its backoff.
    const failed = log.matching('reconcile failed', { name: id });
    assert.deepEqual(failed.map((r) => JSON.stringify(r.fields.error)), [], 'no check failed on a CRD not yet served');
  });

  it('a new Kyma whose runtime already has a runtime Kyma keeps that one and follows its modules', async () => {
    const rt = await createTestRuntime(env.api.server, env.kcp, 'rt-existing');
    const remote = clientFromKubeconfig(env.api.server.clusterAccess(rt.cluster).kubeconfig, { retries: 1 });
    try {
      // A runtime set up before (its CRDs and its Kyma, the module enabled there), whose KCP Kyma is new.
      await syncRemoteCrds(remote, AbortSignal.timeout(10_000));
      await waitFor('the Kyma CRD served', () => remote.list(Kyma, { namespace: Namespaces.Remote }));
      await remote.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: Namespaces.Remote } }).catch(() => undefined);
      const seen: string[] = [];
      const stop = env.api.server.observeRequests(({ cluster, method, path }) => {
        if (cluster === rt.cluster && path.includes('/namespaces/kyma-system/kymas')) seen.push(`${method} ${path.replace(/^.*\/namespaces\/kyma-system\//, '')}`);
      });
      const existing = await remote.create<KymaObject>({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'default', namespace: Namespaces.Remote }, spec: { channel: 'regular', modules: [{ name: 'plain' }] } });
      await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'rt-existing', namespace: NS, labels: { [Labels.KymaName]: 'rt-existing' } }, spec: { channel: 'regular', modules: [] } });
      const ready = await waitFor('Ready with the module of the runtime Kyma', async () => {
        const k = await env.kyma('rt-existing');
        return k.status?.state === 'Ready' && k.status.modules?.some((m) => m.name === 'plain' && m.state === 'Ready') && k;
      });
      stop();
      assert.deepEqual(ready.spec.modules?.map((m) => m.name), ['plain']);
      // Created first (refused: it exists), then read.
      assert.deepEqual(seen.slice(0, 3), ['POST kymas', 'POST kymas', 'GET kymas/default'], "the test's create, the controller's (refused), its read");
      const kept = await env.remoteKyma({ remote });
      assert.equal(kept.metadata.uid, existing.metadata.uid, 'the runtime Kyma kept');
      assert.equal(kept.metadata.labels?.[Labels.WatchedBy], LabelValues.Kyma, 'and labelled');
    } finally {
      remote.close();
    }
  });

  it('a new Kyma waits for its kubeconfig Secret in Processing, not Error, and becomes Ready once the Secret exists', async () => {
    const id = 'rt-new';
    await env.kcp.create({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: id, namespace: NS, labels: { [Labels.KymaName]: id } }, spec: { channel: 'regular', modules: [] } });
    // The status written proves the controller ran and chose Processing (Error before).
    const waiting = await waitFor('a status on the new Kyma', async () => {
      const k = await env.kyma(id);
      return k.status?.state ? k : undefined;
    });
    assert.equal(waiting.status?.state, 'Processing');
    assert.match(waiting.status?.lastOperation?.operation ?? '', /^waiting for the runtime's kubeconfig: kubeconfig Secret of Kyma rt-new not found/);
    await createTestRuntime(env.api.server, env.kcp, id);
    const ready = await waitFor('Ready once the Secret exists', async () => {
      const k = await env.kyma(id);
      return k.status?.state === 'Ready' ? k : undefined;
    });
    const crds = ready.status?.conditions?.find((c) => c.type === 'CRDsSync');
    assert.deepEqual([crds?.status, crds?.reason, crds?.message], ['True', 'Ready', 'CRDs are synchronized to the SKR']);
  });

  it('a deleted kubeconfig Secret makes the Kyma wait for it (Processing), and a Secret without a kubeconfig makes it Error', async () => {
    const rt = await env.runtime('rt-secret');
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    const secret = await env.kcp.get(SECRET, { namespace: NS, name: rt.secretName });
    await env.kcp.delete(SECRET, { namespace: NS, name: rt.secretName });
    const waiting = await waitFor('Processing', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Processing' ? k : undefined;
    });
    assert.match(waiting.status?.lastOperation?.operation ?? '', /waiting for the runtime's kubeconfig: kubeconfig Secret .*not found/);
    await env.kcp.create({ ...secret, metadata: { name: secret.metadata.name, namespace: NS, labels: secret.metadata.labels }, data: { other: 'eA==' } });
    const failed = await waitFor('Error', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Error' ? k : undefined;
    });
    assert.match(failed.status?.lastOperation?.operation ?? '', /has no key config/);
    await env.kcp.patch(SECRET, { namespace: NS, name: rt.secretName }, 'merge', { data: (secret as { data?: Record<string, string> }).data });
    await waitFor('Ready again', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
  });

  it('rejected credentials make the Kyma Error, and a rotated kubeconfig Secret recovers it', async () => {
    const rt = await env.runtime('rt-rotate');
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    const rotate = async (ttlSeconds: number) => {
      const { token } = env.api.server.issueToken(rt.cluster, ttlSeconds);
      const config = Buffer.from(env.api.server.kubeconfigWithToken(rt.cluster, token)).toString('base64');
      await env.kcp.patch(SECRET, { namespace: NS, name: rt.secretName }, 'merge', { data: { config } });
    };
    await rotate(2);
    const failed = await waitFor('Error once the short-lived token expired', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Error' ? k : undefined;
    });
    assert.match(failed.status?.lastOperation?.operation ?? '', /rejected the credentials/);
    await rotate(3600);
    await waitFor('Ready with the rotated kubeconfig', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
  });

  it('a runtime answering 503 makes the Kyma Error (server errors) until it serves again', async () => {
    const rt = await env.runtime('rt-faults', { modules: [{ name: 'plain' }] });
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    const errors = (): number => Number(/^controller_runtime_reconcile_errors_total\{controller="kyma"\} (\d+)$/m.exec(env.lm.manager.registry.render())?.[1] ?? 'NaN');
    const errorsBefore = errors();
    env.api.server.setFaults(rt.cluster, { errorRate: 1, errorCodes: [503], retryAfterSeconds: 0 });
    const failed = await waitFor('Error', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Error' ? k : undefined;
    });
    assert.match(failed.status?.lastOperation?.operation ?? '', /answers with server errors \(503 ServiceUnavailable\)/);
    env.api.server.setFaults(rt.cluster, undefined);
    await waitFor('Ready again', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');

    // The failure is a warning with the Kyma and the reason, and counted; the way back is routine.
    const changes = log.matching('Kyma state changed', { kyma: rt.kymaName });
    const toError = changes.filter((r) => r.fields.to === 'Error');
    assert.deepEqual(toError.map((r) => r.level), ['warn']);
    assert.match(String(toError[0]?.fields.reason), /answers with server errors/);
    assert.ok(changes.filter((r) => r.fields.to !== 'Error').every((r) => r.level === 'debug'), 'other state changes at debug');
    assert.ok(errors() > errorsBefore, 'the Error counted in controller_runtime_reconcile_errors_total');
  });

  it('deleting a Kyma removes its Manifests, the runtime Kyma and the CRDs, then the Kyma', async () => {
    const rt = await env.runtime('rt-delete', { modules: [{ name: 'plain' }] });
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    await env.kcp.delete(Kyma, { namespace: NS, name: rt.kymaName });
    await waitFor('the Kyma gone', () => gone(() => env.kyma(rt.kymaName)), 30_000);
    assert.equal((await env.manifests(rt.kymaName)).length, 0);
    for (const name of ['kymas.operator.kyma-project.io', 'moduletemplates.operator.kyma-project.io', 'modulereleasemetas.operator.kyma-project.io']) {
      await waitFor(`CRD ${name} gone from the runtime`, () => gone(() => rt.remote.get(CRD, { name })));
    }
  });

  it('with the opt-in remoteCleanupTimeoutMs, a Kyma is deprovisioned after its runtime cluster was removed though its kubeconfig Secret stays', async () => {
    const rt = await env.runtime('rt-gone', { modules: [{ name: 'plain' }] });
    await waitFor('Ready', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    await env.api.server.deleteCluster(rt.cluster);
    await env.kcp.delete(Kyma, { namespace: NS, name: rt.kymaName });
    await waitFor('the Kyma gone', () => gone(() => env.kyma(rt.kymaName)), 30_000);
    assert.equal((await env.manifests(rt.kymaName)).length, 0);
  });
});
