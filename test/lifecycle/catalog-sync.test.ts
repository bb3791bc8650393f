// syncCatalog: a runtime's catalog copies are brought in line with a few writes in flight at once,
// release metas before templates, unchanged copies left alone and stale ones deleted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LabelValues, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces, OPERATOR_GROUP } from '../../src/api/operator/index.js';
import { syncCatalog } from '../../src/lifecycle/catalog/sync.js';
import type { KindRef, KubeObject } from '../../src/kube/object.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { sleep } from '../../src/util/sleep.js';

const HASH = `${OPERATOR_GROUP}/catalog-hash`;

function copy(kind: KindRef, name: string, hash: string): KubeObject {
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: { name, namespace: Namespaces.Remote, labels: { [Labels.ManagedBy]: LabelValues.LifecycleManager }, annotations: { [HASH]: hash } },
    spec: {},
  };
}

/** A runtime holding `current`; each write takes a few milliseconds; records the writes and how many were in flight. */
function fakeRuntime(current: KubeObject[]) {
  const log: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const write = async (what: string) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    log.push(`start ${what}`);
    await sleep(5);
    log.push(`end ${what}`);
    inFlight--;
  };
  const client = {
    list: async (kind: KindRef) => ({ items: current.filter((o) => o.kind === kind.kind) }),
    apply: async (obj: KubeObject) => {
      await write(`apply ${obj.kind}/${obj.metadata.name ?? ''}`);
      return obj;
    },
    delete: async (kind: KindRef, key: { name: string }) => {
      await write(`delete ${kind.kind}/${key.name}`);
    },
  } as unknown as Client;
  return { client, log, maxInFlight: () => maxInFlight };
}

test('a first sync writes a dozen copies a few at a time, the release metas first', async () => {
  const desired = [
    ...['a', 'b', 'c', 'd', 'e', 'f'].map((m) => copy(ModuleReleaseMeta, m, 'h1')),
    ...['a', 'b', 'c', 'd', 'e', 'f'].map((m) => copy(ModuleTemplate, `${m}-1.0.0`, 'h1')),
  ];
  const runtime = fakeRuntime([]);
  const result = await syncCatalog(runtime.client, desired, new AbortController().signal);
  assert.deepEqual(result, { applied: 12, deleted: 0, total: 12 });
  assert.ok(runtime.maxInFlight() > 1, 'more than one write in flight');
  assert.ok(runtime.maxInFlight() <= 4, `at most 4 in flight, saw ${runtime.maxInFlight()}`);
  const lastMetaEnd = Math.max(...runtime.log.map((l, i) => (l.startsWith('end apply ModuleReleaseMeta/') ? i : -1)));
  const firstTemplateStart = runtime.log.findIndex((l) => l.startsWith('start apply ModuleTemplate/'));
  assert.ok(lastMetaEnd < firstTemplateStart, 'every release meta written before the first template');
});

test('unchanged copies are left alone, changed ones applied, stale ones deleted', async () => {
  const current = [copy(ModuleReleaseMeta, 'a', 'h1'), copy(ModuleReleaseMeta, 'b', 'old'), copy(ModuleReleaseMeta, 'gone', 'h1'), copy(ModuleTemplate, 'a-1.0.0', 'h1'), copy(ModuleTemplate, 'gone-1.0.0', 'h1')];
  const desired = [copy(ModuleReleaseMeta, 'a', 'h1'), copy(ModuleReleaseMeta, 'b', 'h2'), copy(ModuleTemplate, 'a-1.0.0', 'h1'), copy(ModuleTemplate, 'b-1.0.0', 'h2')];
  const runtime = fakeRuntime(current);
  const result = await syncCatalog(runtime.client, desired, new AbortController().signal);
  assert.deepEqual(result, { applied: 2, deleted: 2, total: 4 });
  assert.deepEqual(runtime.log.filter((l) => l.startsWith('start')).sort(), [
    'start apply ModuleReleaseMeta/b',
    'start apply ModuleTemplate/b-1.0.0',
    'start delete ModuleReleaseMeta/gone',
    'start delete ModuleTemplate/gone-1.0.0',
  ]);
});
