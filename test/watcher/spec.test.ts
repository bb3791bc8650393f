// The pure parts of the Watcher controller: what makes a Watcher invalid, the VirtualService it
// needs, and the Gateway selector as a list selector.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Watcher, type WatcherObject } from '../../src/api/operator/index.js';
import { defaultWatchers, DEFAULT_LISTENER, desiredVirtualService, selectorText, watcherProblems } from '../../src/watcher/index.js';
import { gateway } from './istio-crds.js';

function watcher(edit: (w: WatcherObject) => void = () => undefined): WatcherObject {
  const w: WatcherObject = {
    apiVersion: Watcher.apiVersion,
    kind: Watcher.kind,
    metadata: { name: 'sample', namespace: 'kcp-system', uid: 'uid-1' },
    spec: {
      manager: 'sample-manager',
      serviceInfo: { name: 'listener', namespace: 'kcp-system', port: 8082 },
      labelsToWatch: { watched: 'true' },
      resourceToWatch: { group: '', version: 'v1', resource: 'configmaps' },
      field: 'spec',
      gateway: { selector: { matchLabels: { 'operator.kyma-project.io/watcher-gateway': 'default' } } },
    },
  };
  edit(w);
  return w;
}

test('the default Watchers and a core-group Watcher are valid', () => {
  for (const w of [...defaultWatchers('kcp-system', DEFAULT_LISTENER), watcher()]) assert.deepEqual(watcherProblems(w), [], w.metadata.name);
});

test('a Watcher without labels is valid for one resource (a module\'s custom resources), not for a wildcard', () => {
  assert.deepEqual(watcherProblems(watcher((w) => (w.spec.labelsToWatch = {}))), []);
  assert.match(watcherProblems(watcher((w) => ((w.spec.labelsToWatch = {}), (w.spec.resourceToWatch.resource = '*')))).join('\n'), /labelsToWatch is empty/);
});

test('each problem names the field', () => {
  const problems = watcherProblems(
    watcher((w) => {
      delete w.spec.manager;
      w.spec.serviceInfo.port = 70000;
      w.spec.labelsToWatch = {};
      w.spec.resourceToWatch.group = '*';
      w.spec.resourceToWatch.resource = 'configmaps/status';
      w.spec.gateway.selector = { matchExpressions: [{ key: 'a', operator: 'Equals', values: ['b'] }] };
    }),
  );
  assert.equal(problems.length, 5, problems.join('\n'));
  for (const [i, needle] of ['spec.manager', 'spec.serviceInfo.port', 'spec.labelsToWatch', 'spec.field: status', 'operator "Equals"'].entries()) assert.ok(problems[i].includes(needle), `${problems[i]} names ${needle}`);
  assert.deepEqual(watcherProblems(watcher((w) => { delete w.spec.manager; w.metadata.labels = { 'operator.kyma-project.io/managed-by': 'legacy' }; })), []);
});

test('the VirtualService: gateways and their hosts sorted by name, one route to the listener, owned by the Watcher', () => {
  const gws = [gateway('b-gw', 'kcp-system', {}, ['b.example.com']), gateway('a-gw', 'kcp-system', {}, ['a.example.com', 'a2.example.com'])];
  assert.deepEqual(desiredVirtualService(watcher(), gws, 'v1beta1'), {
    apiVersion: 'networking.istio.io/v1beta1',
    kind: 'VirtualService',
    metadata: { name: 'sample', namespace: 'kcp-system', ownerReferences: [{ apiVersion: 'operator.kyma-project.io/v1beta2', kind: 'Watcher', name: 'sample', uid: 'uid-1' }] },
    spec: {
      gateways: ['kcp-system/a-gw', 'kcp-system/b-gw'],
      hosts: ['a.example.com', 'a2.example.com', 'b.example.com'],
      http: [{ name: 'kcp-system/sample', match: [{ uri: { prefix: '/v2/sample-manager/event' } }], route: [{ destination: { host: 'listener.kcp-system.svc.cluster.local', port: { number: 8082 } } }] }],
    },
  });
  assert.throws(() => desiredVirtualService(watcher(), [gateway('empty', 'kcp-system', {}, [])], 'v1beta1'), /Gateway kcp-system\/empty has no server hosts/);
});

test('selectorText renders matchLabels and every matchExpressions operator', () => {
  assert.equal(
    selectorText({ matchLabels: { b: '2', a: '1' }, matchExpressions: [{ key: 'c', operator: 'In', values: ['y', 'x'] }, { key: 'd', operator: 'NotIn', values: ['z'] }, { key: 'e', operator: 'Exists' }, { key: 'f', operator: 'DoesNotExist' }] }),
    'a=1,b=2,c in (x,y),d notin (z),e,!f',
  );
  assert.equal(selectorText(undefined), '');
});
