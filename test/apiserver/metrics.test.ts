// /metrics of the embedded API server: kube-apiserver's request counter, latency histogram and
// stored object counts, summed over logical clusters, readable with the admin token only.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { REQUEST_DURATION_BUCKETS } from '../../src/apiserver/metrics.js';
import type { RunningApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';
import { startServerWithAdmin } from '../support/apiserver.js';
import { waitFor } from '../support/wait.js';

/** Samples of a scrape: `name{labels}` (labels as written) -> value. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return out;
}

/** A series name with its labels written as the server writes them (sorted by name). */
function series(name: string, labels: Record<string, string>): string {
  const body = Object.keys(labels)
    .sort((a, b) => (a === 'le' ? 1 : b === 'le' ? -1 : a < b ? -1 : 1))
    .map((k) => `${k}="${labels[k]}"`)
    .join(',');
  return `${name}{${body}}`;
}

const request = (verb: string, resource: string, scope: string, code: string, extra: Record<string, string> = {}) => ({
  code,
  component: 'apiserver',
  dry_run: '',
  group: '',
  resource,
  scope,
  subresource: '',
  verb,
  version: 'v1',
  ...extra,
});

describe('API server /metrics', () => {
  let server: RunningApiServer;
  let admin: KubeClient;
  let stop: () => Promise<void>;
  before(async () => {
    ({ server, admin, stop } = await startServerWithAdmin());
  });
  after(() => stop());

  const scrape = async () => {
    const r = await admin.request('GET', '/metrics');
    assert.equal(r.status, 200, r.text);
    return parse(r.text);
  };
  const delta = (before: Map<string, number>, after: Map<string, number>, key: string) => (after.get(key) ?? 0) - (before.get(key) ?? 0);

  it('counts each request once under kube-apiserver labels, over every logical cluster', async () => {
    const other = await server.createCluster('metrics-b');
    const b = new KubeClient({ url: other.url, token: other.token, caPem: server.caPem });
    const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    const first = await scrape();
    for (let i = 0; i < 3; i++) assert.equal((await admin.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await b.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('m1') })).status, 201);
    assert.equal((await b.request('POST', '/api/v1/namespaces/default/configmaps', { body: cm('m1') })).status, 201);
    assert.equal((await admin.request('GET', '/api/v1/namespaces/default/configmaps/m1')).status, 200);
    assert.equal((await admin.request('GET', '/api/v1/namespaces/default/configmaps/missing')).status, 404);
    assert.equal((await admin.request('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { body: cm('m2') })).status, 201);
    const applied = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'm3' }, data: { a: '1' } });
    assert.equal((await admin.request('PATCH', '/api/v1/namespaces/default/configmaps/m3?fieldManager=test', { body: applied, contentType: 'application/apply-patch+yaml' })).status, 201);
    assert.equal((await admin.request('GET', '/api/v1/configmaps')).status, 200);
    assert.equal((await admin.request('GET', '/apis/apps/v1/namespaces/default/deployments')).status, 200);
    const w = await admin.watch('/api/v1/namespaces/default/configmaps?watch=1');
    await w.take(1, 2000);
    const watching = await scrape();
    w.close();
    const anonymous = new KubeClient({ url: server.url, token: '', caPem: server.caPem });
    for (let i = 0; i < 2; i++) assert.equal((await anonymous.request('GET', '/readyz')).status, 200);
    anonymous.close();
    // The watch counts once it ended on the server's side.
    const last = await waitFor('the closed watch counted', async () => {
      const s = await scrape();
      return delta(first, s, series('apiserver_request_total', request('WATCH', 'configmaps', 'namespace', '200'))) > 0 && s;
    });

    const counted = (labels: Record<string, string>) => delta(first, last, series('apiserver_request_total', labels));
    assert.equal(counted(request('LIST', 'configmaps', 'namespace', '200')), 4, 'three lists in default, one in metrics-b');
    assert.equal(counted(request('POST', 'configmaps', 'resource', '201')), 2);
    assert.equal(counted(request('POST', 'configmaps', 'resource', '201', { dry_run: 'All' })), 1);
    assert.equal(counted(request('GET', 'configmaps', 'resource', '200')), 1);
    assert.equal(counted(request('GET', 'configmaps', 'resource', '404')), 1);
    assert.equal(counted(request('APPLY', 'configmaps', 'resource', '201')), 1);
    assert.equal(counted(request('LIST', 'configmaps', 'cluster', '200')), 1);
    assert.equal(counted(request('LIST', 'deployments', 'namespace', '200', { group: 'apps' })), 1);
    assert.equal(counted(request('WATCH', 'configmaps', 'namespace', '200')), 1);
    const health = { code: '200', component: '', dry_run: '', group: '', resource: '', scope: '', subresource: '/readyz', verb: 'GET', version: '' };
    assert.equal(counted(health), 2, 'health checks are labelled by path, without a component');
    assert.equal(delta(first, watching, series('apiserver_request_total', request('WATCH', 'configmaps', 'namespace', '200'))), 0, 'an open watch is not counted yet');

    const { code: _code, ...listLabels } = request('LIST', 'configmaps', 'namespace', '200');
    const histogram = (suffix: string, extra: Record<string, string> = {}) => delta(first, last, series(`apiserver_request_duration_seconds${suffix}`, { ...listLabels, ...extra }));
    assert.equal(histogram('_count'), 4);
    assert.equal(histogram('_bucket', { le: '+Inf' }), 4);
    assert.equal(histogram('_bucket', { le: '60' }), 4);
    const written = [...last.keys()].filter((k) => k.startsWith(series('apiserver_request_duration_seconds_bucket', listLabels).slice(0, -1)));
    assert.equal(written.length, REQUEST_DURATION_BUCKETS.length + 1, "kube's buckets and +Inf");
    assert.ok(last.has(series('apiserver_request_duration_seconds_bucket', { ...listLabels, le: '0.005' })));
    b.close();
  });

  it('mints no series for made-up subresources or dryRun values: a client cannot grow the series without bound', async () => {
    const first = await scrape();
    for (let i = 0; i < 3; i++) {
      assert.equal((await admin.request('GET', `/api/v1/namespaces/default/configmaps/x/junk${i}`)).status, 404);
      assert.equal((await admin.request('POST', `/api/v1/namespaces/default/configmaps?dryRun=zz${i}`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `dry-${i}` } }) })).status, 400);
    }
    // A served request in the same window proves the requests were being counted.
    assert.equal((await admin.request('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    const last = await scrape();
    const added = [...last.keys()].filter((k) => !first.has(k) && k.startsWith('apiserver_request_total'));
    assert.ok(!added.some((k) => /junk|zz/.test(k)), added.join('\n'));
    const invalid = series('apiserver_request_total', request('POST', 'configmaps', 'resource', '400', { dry_run: 'invalid' }));
    assert.equal(delta(first, last, invalid), 3, 'invalid dryRun values share one label value, as upstream cleanDryRun does');
    assert.equal(delta(first, last, series('apiserver_request_total', request('LIST', 'configmaps', 'namespace', '200'))), 1);
  });

  it('reports stored objects by resource, summed over logical clusters', async () => {
    const s = await scrape();
    const objects = (resource: string) => s.get(series('apiserver_storage_objects', { resource }));
    let configmaps = 0;
    let namespaces = 0;
    for (const name of server.clusterNames()) {
      const c = server.cluster(name);
      configmaps += c.store.list('/configmaps').length;
      namespaces += c.store.list('/namespaces').length;
    }
    assert.ok(configmaps >= 3);
    assert.equal(objects('configmaps'), configmaps);
    assert.equal(objects('namespaces'), namespaces);
    assert.equal(objects('deployments.apps'), 0, 'an empty built-in storage reports 0');
    assert.equal(objects('events'), 0);
    assert.equal(s.has(series('apiserver_storage_objects', { resource: 'events.events.k8s.io' })), false, 'events.k8s.io Events share the core storage');
  });

  it('is served to the admin token only, and scrapes are not counted', async () => {
    const b = server.clusterAccess('metrics-b');
    const asRuntime = new KubeClient({ url: server.url, token: b.token, caPem: server.caPem });
    const forbidden = await asRuntime.request('GET', '/metrics');
    assert.equal(forbidden.status, 403);
    assert.deepEqual(JSON.parse(forbidden.text), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'forbidden: User "admin" cannot get path "/metrics"', reason: 'Forbidden', details: {}, code: 403 });
    const prefixed = new KubeClient({ url: b.url, token: server.adminToken, caPem: server.caPem });
    assert.equal((await prefixed.request('GET', '/metrics')).status, 401);
    const anonymous = new KubeClient({ url: server.url, token: '', caPem: server.caPem });
    assert.equal((await anonymous.request('GET', '/metrics')).status, 401);
    for (const c of [asRuntime, prefixed, anonymous]) c.close();
    const before = server.requestCount();
    const text = (await admin.request('GET', '/metrics')).text;
    assert.equal(server.requestCount(), before);
    assert.doesNotMatch(text, /metrics"/, 'no series for /metrics itself');
    assert.match(text, /^# TYPE apiserver_request_total counter$/m);
    assert.match(text, /^# TYPE apiserver_request_duration_seconds histogram$/m);
    assert.match(text, /^# TYPE apiserver_storage_objects gauge$/m);
  });
});
