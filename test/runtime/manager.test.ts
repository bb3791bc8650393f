// The manager's operations side: /metrics in Prometheus text with controller-runtime's names,
// /healthz and /readyz (ready = caches synced), events.k8s.io Events with series aggregation,
// structured JSON logs, shared informers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { clientFromKubeconfig } from '../../src/runtime/client/index.js';
import { createLogger, silentLogger } from '../../src/runtime/log.js';
import { Manager, newControllerManagedBy } from '../../src/runtime/manager.js';
import type { KubeObject } from '../../src/kube/object.js';
import { waitFor } from '../support/wait.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
const EVENT = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };

async function httpGet(url: string): Promise<{ status: number; text: string; type: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

describe('manager', () => {
  let server: RunningApiServer;
  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    await server.stop();
  });

  it('serves /metrics, /healthz and /readyz (ready once caches are synced)', async () => {
    const access = await server.createCluster('ops');
    const client = clientFromKubeconfig(access.kubeconfig, { retries: 0 });
    server.setFaults('ops', { unreachable: true });
    const manager = new Manager({ client, logger: silentLogger, operationsPort: 0, informerBackoff: { initialMs: 20, maxMs: 100 } });
    newControllerManagedBy(manager)
      .named('ops-controller')
      .for(CONFIGMAP)
      .withOptions({ maxConcurrentReconciles: 3 })
      .complete(async () => undefined);
    const ac = new AbortController();
    const running = manager.start(ac.signal);
    await waitFor('operations server', () => manager.operationsUrl !== undefined);
    const base = manager.operationsUrl ?? '';
    assert.equal((await httpGet(`${base}/healthz`)).status, 200);
    const notReady = await httpGet(`${base}/readyz`);
    assert.equal(notReady.status, 500, 'not ready while the cache cannot sync');
    assert.match(notReady.text, /\[-\]informers failed: not synced: ConfigMap/);
    server.setFaults('ops', undefined);
    await manager.ready();
    const ready = await httpGet(`${base}/readyz?verbose`);
    assert.equal(ready.status, 200);
    assert.match(ready.text, /\[\+\]informers ok/);
    await client.create({ ...CONFIGMAP, metadata: { name: 'x', namespace: 'default' } });
    // One reconcile per ConfigMap: x and the kube-root-ca.crt of each namespace.
    const configMaps = (await client.list(CONFIGMAP)).items.length;
    await waitFor('a reconcile of each', () => manager.registry.render().includes(`controller_runtime_reconcile_total{controller="ops-controller",result="success"} ${configMaps}`));
    const metrics = await httpGet(`${base}/metrics`);
    assert.equal(metrics.status, 200);
    assert.match(metrics.type, /^text\/plain; version=0\.0\.4/);
    for (const name of [
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds',
      'workqueue_work_duration_seconds',
      'workqueue_retries_total',
      'workqueue_unfinished_work_seconds',
      'workqueue_longest_running_processor_seconds',
      'controller_runtime_reconcile_total',
      'controller_runtime_reconcile_errors_total',
      'controller_runtime_reconcile_time_seconds',
      'controller_runtime_active_workers',
      'controller_runtime_max_concurrent_reconciles',
    ]) {
      assert.match(metrics.text, new RegExp(`^# TYPE ${name} (counter|gauge|histogram)$`, 'm'), name);
    }
    assert.match(metrics.text, /^controller_runtime_max_concurrent_reconciles\{controller="ops-controller"\} 3$/m);
    assert.match(metrics.text, /^controller_runtime_reconcile_time_seconds_bucket\{controller="ops-controller",le="\+Inf"\} \d+$/m);
    assert.match(metrics.text, /^workqueue_adds_total\{controller="ops-controller",name="ops-controller"\} \d+$/m);
    ac.abort();
    await running;
    await assert.rejects(fetch(`${base}/healthz`), 'the server is closed after shutdown');
    client.close();
  });

  it('writes events.k8s.io Events and aggregates repeats into a series', async () => {
    const access = await server.createCluster('events');
    const client = clientFromKubeconfig(access.kubeconfig, { retries: 1 });
    const manager = new Manager({ client, logger: silentLogger, name: 'test-controller', reportingInstance: 'replica-1' });
    const regarding = await client.create<KubeObject>({ ...CONFIGMAP, metadata: { name: 'subject', namespace: 'default' } });
    manager.events.event(regarding, 'Warning', 'InstallFailed', 'could not install module x', 'Install');
    await manager.events.flush();
    manager.events.event(regarding, 'Warning', 'InstallFailed', 'could not install module x', 'Install');
    manager.events.event(regarding, 'Warning', 'InstallFailed', 'could not install module x', 'Install');
    manager.events.event(regarding, 'Normal', 'Installed', 'module x installed', 'Install');
    await manager.events.flush();
    const list = await client.list(EVENT, { namespace: 'default' });
    const failed = list.items.filter((e) => e.reason === 'InstallFailed');
    assert.equal(failed.length, 1, 'repeats share one Event');
    const e = failed[0];
    assert.equal(e.type, 'Warning');
    assert.equal(e.note, 'could not install module x');
    assert.equal(e.action, 'Install');
    assert.equal(e.reportingController, 'test-controller');
    assert.equal(e.reportingInstance, 'replica-1');
    assert.deepEqual(e.regarding, { apiVersion: 'v1', kind: 'ConfigMap', name: 'subject', namespace: 'default', uid: regarding.metadata.uid, resourceVersion: regarding.metadata.resourceVersion });
    assert.equal((e.series as { count: number }).count, 3);
    assert.equal(list.items.filter((x) => x.reason === 'Installed').length, 1);
    client.close();
  });

  it('logs one JSON object per line with level, time, logger, msg and bound fields', () => {
    const lines: string[] = [];
    const root = createLogger({ name: 'kcp', level: 'info', sink: (l) => lines.push(l) });
    const child = root.child('kyma', { controller: 'kyma' });
    child.info('reconciled', { namespace: 'kcp-system', name: 'k1', error: new Error('boom') });
    child.debug('hidden');
    root.warn('plain');
    assert.equal(lines.length, 2);
    const first = JSON.parse(lines[0]) as Record<string, unknown>;
    assert.equal(first.level, 'info');
    assert.equal(first.logger, 'kcp.kyma');
    assert.equal(first.msg, 'reconciled');
    assert.equal(first.controller, 'kyma');
    assert.equal(first.name, 'k1');
    assert.deepEqual(first.error, { name: 'Error', message: 'boom' });
    assert.ok(!Number.isNaN(Date.parse(String(first.time))));
    assert.equal((JSON.parse(lines[1]) as Record<string, unknown>).logger, 'kcp');
  });

  it('shares one informer per kind, namespace and selector between controllers', async () => {
    const access = await server.createCluster('shared');
    const client = clientFromKubeconfig(access.kubeconfig, { retries: 1 });
    const manager = new Manager({ client, logger: silentLogger });
    const seen: string[] = [];
    for (const n of ['one', 'two']) newControllerManagedBy(manager).named(n).for(CONFIGMAP).complete(async (req) => void seen.push(`${n}:${req.name}`));
    newControllerManagedBy(manager).named('three').for(CONFIGMAP, { namespace: 'default' }).complete(async () => undefined);
    assert.equal(manager.informer(CONFIGMAP), manager.informer(CONFIGMAP));
    assert.notEqual(manager.informer(CONFIGMAP), manager.informer(CONFIGMAP, { namespace: 'default' }));
    const ac = new AbortController();
    const running = manager.start(ac.signal);
    await manager.ready();
    await client.create({ ...CONFIGMAP, metadata: { name: 'both', namespace: 'default' } });
    await waitFor('both controllers reconcile', () => seen.includes('one:both') && seen.includes('two:both'));
    assert.equal(manager.informer(CONFIGMAP).stats.lists, 1);
    const sizes = manager.cacheSizes({ jsonBytes: true });
    assert.equal(sizes.length, 2, 'one entry per shared informer');
    const cluster = sizes.find((c) => !c.scope.includes('|default|'));
    assert.equal(cluster?.kind, 'ConfigMap');
    assert.equal(cluster?.objects, manager.cache(CONFIGMAP).size);
    assert.ok((cluster?.objects ?? 0) >= 1);
    assert.ok((cluster?.jsonBytes ?? 0) > JSON.stringify({ name: 'both' }).length);
    assert.equal(manager.cacheSizes()[0].jsonBytes, undefined, 'sizes as JSON only when asked');
    ac.abort();
    await running;
    client.close();
  });
});
