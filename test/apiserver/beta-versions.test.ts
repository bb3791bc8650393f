// The beta versions kube-apiserver 1.24 still serves next to the stable ones, which kubectl 1.20's
// generators write: batch/v1beta1 CronJob and policy/v1beta1 PodDisruptionBudget. Objects are stored
// in the stable version and read through either; every request to a beta version carries the
// deprecation warning; a PodDisruptionBudget's empty selector keeps its meaning across versions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeObject, encodeObject } from '../../src/apiserver/protobuf/codec.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { rawRequest } from '../support/https-raw.js';

interface Obj {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; resourceVersion?: string };
  spec: Record<string, unknown>;
}
interface List {
  apiVersion: string;
  items: Obj[];
}

const CRONJOB_DEPRECATION = '299 - "batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob"';
const PDB_DEPRECATION = '299 - "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget"';
const PDB_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';

const cronJob = (name: string) => ({
  apiVersion: 'batch/v1beta1',
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
});
const pdb = (apiVersion: string, name: string, selector: unknown) => ({ apiVersion, kind: 'PodDisruptionBudget', metadata: { name }, spec: { minAvailable: 1, selector } });

describe('deprecated beta versions of built-in kinds', () => {
  let server: RunningApiServer;
  const target = () => ({ url: server.url, token: server.adminToken, caPem: server.caPem });
  const request = (method: string, path: string, body?: unknown) => rawRequest(target(), method, path, body === undefined ? {} : { body: JSON.stringify(body) });
  const read = async <T>(path: string): Promise<T> => {
    const r = await request('GET', path);
    assert.equal(r.status, 200, r.body.toString());
    return JSON.parse(r.body.toString()) as T;
  };

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    await server.stop();
  });

  it('lists the beta versions in discovery after the preferred stable ones', async () => {
    for (const group of ['batch', 'policy']) {
      const g = await read<{ versions: { version: string }[]; preferredVersion: { version: string } }>(`/apis/${group}`);
      assert.deepEqual(g.versions.map((v) => v.version), ['v1', 'v1beta1']);
      assert.equal(g.preferredVersion.version, 'v1');
    }
    const beta = await read<{ resources: { name: string; kind: string }[] }>('/apis/batch/v1beta1');
    assert.deepEqual(beta.resources.map((r) => [r.name, r.kind]), [['cronjobs', 'CronJob'], ['cronjobs/status', 'CronJob']]);
  });

  it('stores a CronJob written through batch/v1beta1 as batch/v1, serves it through both, and warns on every beta request', async () => {
    const created = await request('POST', '/apis/batch/v1beta1/namespaces/default/cronjobs', cronJob('nightly'));
    assert.equal(created.status, 201, created.body.toString());
    assert.equal(created.headers.warning, CRONJOB_DEPRECATION);
    const answer = JSON.parse(created.body.toString()) as Obj;
    assert.equal(answer.apiVersion, 'batch/v1beta1');
    assert.equal(answer.spec.concurrencyPolicy, 'Allow', 'defaulted as batch/v1 CronJobs are');

    const stable = await request('GET', '/apis/batch/v1/namespaces/default/cronjobs/nightly');
    assert.equal(stable.headers.warning, undefined, 'no warning for the stable version');
    const v1 = JSON.parse(stable.body.toString()) as Obj;
    assert.deepEqual([v1.apiVersion, v1.spec.schedule, v1.metadata.resourceVersion], ['batch/v1', '*/5 * * * *', answer.metadata.resourceVersion]);

    const list = await request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs');
    assert.equal(list.headers.warning, CRONJOB_DEPRECATION);
    const items = JSON.parse(list.body.toString()) as List;
    assert.equal(items.apiVersion, 'batch/v1beta1');
    assert.deepEqual(items.items.map((i) => [i.apiVersion, i.metadata.name]), [[undefined, 'nightly']]);

    const patched = await rawRequest(target(), 'PATCH', '/apis/batch/v1beta1/namespaces/default/cronjobs/nightly', {
      body: JSON.stringify({ spec: { suspend: true } }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.body.toString());
    assert.equal(patched.headers.warning, CRONJOB_DEPRECATION);
    assert.equal((await read<Obj>('/apis/batch/v1/namespaces/default/cronjobs/nightly')).spec.suspend, true);

    const missing = await request('GET', '/apis/batch/v1beta1/namespaces/default/cronjobs/absent');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.warning, CRONJOB_DEPRECATION, 'failed requests are warned too');
  });

  it('speaks protobuf for the beta versions', async () => {
    const r = await rawRequest(target(), 'POST', '/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets', {
      body: encodeObject(pdb('policy/v1beta1', 'binary', { matchLabels: { app: 'web' } })),
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/vnd.kubernetes.protobuf' },
    });
    assert.equal(r.status, 201, r.body.toString());
    assert.equal(r.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    const answer = decodeObject(r.body) as unknown as Obj;
    assert.deepEqual([answer.apiVersion, answer.kind, answer.spec.selector], ['policy/v1beta1', 'PodDisruptionBudget', { matchLabels: { app: 'web' } }]);
  });

  it("keeps the meaning of a PodDisruptionBudget's empty selector across versions, as kube-apiserver converts it", async () => {
    const base = (v: string) => `/apis/policy/${v}/namespaces/default/poddisruptionbudgets`;
    // v1beta1: an empty selector selects nothing; v1: everything.
    assert.equal((await request('POST', base('v1beta1'), pdb('policy/v1beta1', 'none', {}))).status, 201);
    assert.equal((await request('POST', base('v1'), pdb('policy/v1', 'all', {}))).status, 201);
    const matchNone = { matchExpressions: [{ key: PDB_LABEL, operator: 'Exists' }] };
    const matchAll = { matchExpressions: [{ key: PDB_LABEL, operator: 'DoesNotExist' }] };
    assert.deepEqual((await read<Obj>(`${base('v1')}/none`)).spec.selector, matchNone);
    assert.deepEqual((await read<Obj>(`${base('v1beta1')}/none`)).spec.selector, {});
    assert.deepEqual((await read<Obj>(`${base('v1')}/all`)).spec.selector, {});
    assert.deepEqual((await read<Obj>(`${base('v1beta1')}/all`)).spec.selector, matchAll);
    // Written back through v1beta1 as read, each keeps its meaning.
    for (const name of ['none', 'all']) {
      const o = await read<Obj>(`${base('v1beta1')}/${name}`);
      assert.equal((await request('PUT', `${base('v1beta1')}/${name}`, o)).status, 200);
    }
    assert.deepEqual((await read<Obj>(`${base('v1')}/none`)).spec.selector, matchNone);
    assert.deepEqual((await read<Obj>(`${base('v1')}/all`)).spec.selector, {});
    // Through v1beta1, the reserved key is dropped from any other selector.
    const mixed = { matchLabels: { app: 'web' }, matchExpressions: [{ key: PDB_LABEL, operator: 'Exists' }, { key: 'tier', operator: 'In', values: ['front'] }] };
    assert.equal((await request('POST', base('v1beta1'), pdb('policy/v1beta1', 'mixed', mixed))).status, 201);
    assert.deepEqual((await read<Obj>(`${base('v1')}/mixed`)).spec.selector, { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] });
    const listed = await request('GET', base('v1beta1'));
    assert.equal(listed.headers.warning, PDB_DEPRECATION);
    const items = (JSON.parse(listed.body.toString()) as List).items;
    assert.deepEqual(
      items.map((i) => [i.metadata.name, i.spec.selector]),
      [
        ['all', matchAll],
        ['binary', { matchLabels: { app: 'web' } }],
        ['mixed', { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] }],
        ['none', {}],
      ],
    );
  });
});
