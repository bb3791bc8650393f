// The simulated deployment and replica set controllers, scheduler and kubelets of a runtime cluster:
// ReplicaSets per pod template with kube's names, labels, annotations and revisions, old ones scaled
// down and pruned, Pods owned, bound and Running, and nothing written while nothing changes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import type { KubeObject } from '../../src/kube/object.js';
import { KubeletSimulator } from '../../src/landscape/index.js';
import { type Client, clientFromKubeconfig } from '../../src/runtime/client/index.js';
import { RecordingLogger } from '../support/log.js';
import { waitFor } from '../support/wait.js';

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const REPLICASET = { apiVersion: 'apps/v1', kind: 'ReplicaSet' };
const POD = { apiVersion: 'v1', kind: 'Pod' };
const NODE = { apiVersion: 'v1', kind: 'Node' };
const NS = 'apps';
const CLUSTER = 'skr-workloads';
/** kube's rand.SafeEncodeString alphabet: pod name suffixes and template hashes use only these. */
const SAFE = '[bcdfghjklmnpqrstvwxz2456789]';

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}
type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> & { conditions?: Condition[] } };

function deployment(name: string, image: string, extra: Record<string, unknown> = {}): KubeObject {
  const labels = { app: name };
  return {
    ...DEPLOYMENT,
    metadata: { name, namespace: NS, annotations: { 'team.example/owner': 'platform' } },
    spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'main', image }] } }, ...extra },
  };
}

describe('simulated deployment controller, replica set controller and kubelets', () => {
  let server: RunningApiServer;
  let kubelet: KubeletSimulator;
  let c: Client;
  const log = new RecordingLogger();

  before(async () => {
    server = await startApiServer({ port: 0 });
    const access = await server.createCluster(CLUSTER);
    kubelet = new KubeletSimulator(server, { readyDelayMs: 30, nodes: 2 }, log);
    kubelet.attach(CLUSTER);
    c = clientFromKubeconfig(access.kubeconfig, { qps: 0 });
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  after(async () => {
    c.close();
    await kubelet.stop();
    await server.stop();
  });

  const get = (kind: { apiVersion: string; kind: string }, name: string) => c.get(kind, { namespace: NS, name }) as Promise<Obj>;
  const listRs = async (app: string) => (await c.list(REPLICASET, { namespace: NS, labelSelector: `app=${app}` })).items as Obj[];
  const listPods = async (app: string) => (await c.list(POD, { namespace: NS, labelSelector: `app=${app}` })).items as Obj[];
  const cond = (o: Obj, type: string) => o.status?.conditions?.find((x) => x.type === type);
  /** The Deployment once its rollout is complete (the status says so for its current generation). */
  const rolledOut = (name: string) =>
    waitFor(`deployment ${name} rolled out`, async () => {
      const d = await get(DEPLOYMENT, name);
      const s = d.status ?? {};
      const want = (d.spec?.replicas as number | undefined) ?? 1;
      const done = s.observedGeneration === d.metadata.generation && s.replicas === want && s.updatedReplicas === want && s.availableReplicas === want && cond(d, 'Progressing')?.reason === 'NewReplicaSetAvailable';
      return done ? d : undefined;
    });

  it('registers its own nodes in a cluster without any', async () => {
    const nodes = await waitFor('two nodes', async () => {
      const items = (await c.list(NODE)).items as Obj[];
      return items.length === 2 ? items : undefined;
    });
    assert.deepEqual(nodes.map((n) => n.metadata.name).sort(), ['node-1', 'node-2']);
    for (const n of nodes) assert.equal(cond(n, 'Ready')?.status, 'True');
  });

  it('gives a Deployment a ReplicaSet named by its pod template hash, and Running pods bound to nodes', async () => {
    await c.create(deployment('web', 'nginx'));
    const d = await rolledOut('web');
    const [rs, ...others] = await listRs('web');
    assert.equal(others.length, 0);
    const hash = (rs.metadata.labels ?? {})['pod-template-hash'];
    assert.match(hash, new RegExp(`^${SAFE}{6,10}$`));
    assert.equal(rs.metadata.name, `web-${hash}`);
    assert.deepEqual((rs.spec?.selector as { matchLabels: Record<string, string> }).matchLabels, { app: 'web', 'pod-template-hash': hash });
    assert.deepEqual(rs.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    assert.deepEqual(rs.metadata.annotations, {
      'team.example/owner': 'platform',
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    // Written with the status through /status, as kube's controller does: the generation stays (an
    // annotation change through the main resource would bump it), the status entry owns the revision.
    assert.equal(d.metadata.generation, 1);
    const statusEntry = d.metadata.managedFields?.find((e) => e.manager === 'kube-controller-manager' && e.subresource === 'status');
    assert.deepEqual((statusEntry?.fieldsV1 as { 'f:metadata'?: unknown } | undefined)?.['f:metadata'], { 'f:annotations': { 'f:deployment.kubernetes.io/revision': {} } });
    assert.equal(d.metadata.managedFields?.find((e) => e.manager === 'kube-controller-manager' && e.subresource === undefined), undefined, 'no write through the main resource');
    assert.deepEqual(rs.status, { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1 });
    assert.deepEqual(
      d.status?.conditions?.map((x) => [x.type, x.status, x.reason, x.message]),
      [
        ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
        ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
      ],
    );

    const pods = await listPods('web');
    assert.equal(pods.length, 2);
    const nodes = new Set<string>();
    for (const p of pods) {
      assert.match(p.metadata.name ?? '', new RegExp(`^web-${hash}-${SAFE}{5}$`));
      assert.deepEqual(p.metadata.labels, { app: 'web', 'pod-template-hash': hash });
      assert.equal(p.metadata.ownerReferences?.[0]?.uid, rs.metadata.uid);
      assert.equal(p.metadata.ownerReferences?.[0]?.controller, true);
      assert.equal(p.status?.phase, 'Running');
      assert.equal(cond(p, 'Ready')?.status, 'True');
      const [cs] = p.status?.containerStatuses as { name: string; ready: boolean; image: string; state: { running?: unknown } }[];
      assert.deepEqual([cs.name, cs.ready, cs.image, cs.state.running !== undefined], ['main', true, 'docker.io/library/nginx:latest', true]);
      const nodeName = p.spec?.nodeName as string;
      nodes.add(nodeName);
      const node = await c.get(NODE, { name: nodeName });
      const hostIP = (node.status as { addresses: { type: string; address: string }[] }).addresses.find((a) => a.type === 'InternalIP')?.address;
      assert.equal(p.status?.hostIP, hostIP);
      assert.match(String(p.status?.podIP), /^100\.96\.\d+\.\d+$/);
    }
    assert.equal(nodes.size, 2, 'the two pods are spread over the two nodes');
  });

  it('the pod template hash is stable: the same template gives the same hash in another namespace', async () => {
    await c.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'twin' } });
    await c.create({ ...deployment('web', 'nginx'), metadata: { name: 'web', namespace: 'twin' } });
    const twin = await waitFor('the twin ReplicaSet', async () => (await c.list(REPLICASET, { namespace: 'twin' })).items[0]);
    const [web] = await listRs('web');
    assert.equal(twin.metadata.name, web.metadata.name);
    await c.delete({ apiVersion: 'v1', kind: 'Namespace' }, { name: 'twin' });
  });

  it('a template change is a new revision: a new ReplicaSet, the old one scaled to 0 and its pods gone', async () => {
    const [first] = await listRs('web');
    await c.patch(DEPLOYMENT, { namespace: NS, name: 'web' }, 'merge', { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx:1.27' }] } } } });
    const d = await rolledOut('web');
    const all = await listRs('web');
    assert.equal(all.length, 2);
    const second = all.find((rs) => rs.metadata.name !== first.metadata.name)!;
    assert.equal(second.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.equal(d.metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
    assert.equal(cond(d, 'Progressing')?.message, `ReplicaSet "${second.metadata.name}" has successfully progressed.`);
    const old = await get(REPLICASET, first.metadata.name ?? '');
    assert.equal(old.spec?.replicas, 0);
    assert.equal(old.status?.replicas, 0);
    const pods = await waitFor('only the new template\'s pods', async () => {
      const items = await listPods('web');
      return items.length === 2 && items.every((p) => p.metadata.labels?.['pod-template-hash'] === second.metadata.labels?.['pod-template-hash']) ? items : undefined;
    });
    assert.ok(pods.every((p) => (p.spec?.containers as { image: string }[])[0].image === 'nginx:1.27'));
  });

  it('going back to an earlier template reuses its ReplicaSet under a new revision and remembers the old one', async () => {
    const before = await listRs('web');
    await c.patch(DEPLOYMENT, { namespace: NS, name: 'web' }, 'merge', { spec: { template: { spec: { containers: [{ name: 'main', image: 'nginx' }] } } } });
    await rolledOut('web');
    const after = await listRs('web');
    assert.deepEqual(after.map((rs) => rs.metadata.name).sort(), before.map((rs) => rs.metadata.name).sort(), 'no ReplicaSet was added');
    const reused = after.find((rs) => rs.spec?.replicas === 2)!;
    assert.equal(reused.metadata.annotations?.['deployment.kubernetes.io/revision'], '3');
    assert.equal(reused.metadata.annotations?.['deployment.kubernetes.io/revision-history'], '1');
  });

  it('keeps revisionHistoryLimit old ReplicaSets, deleting the oldest revisions', async () => {
    await c.create(deployment('hist', 'busybox:1', { replicas: 1, revisionHistoryLimit: 2 }));
    await rolledOut('hist');
    for (const tag of ['2', '3', '4']) {
      await c.patch(DEPLOYMENT, { namespace: NS, name: 'hist' }, 'merge', { spec: { template: { spec: { containers: [{ name: 'main', image: `busybox:${tag}` }] } } } });
      await rolledOut('hist');
    }
    const revisions = await waitFor('the history pruned to 2 old ReplicaSets', async () => {
      const rss = await listRs('hist');
      return rss.length === 3 ? rss.map((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision']).sort() : undefined;
    });
    assert.deepEqual(revisions, ['2', '3', '4']);
  });

  it('scales: more pods, fewer pods, and a deleted pod is replaced', async () => {
    await c.patch(DEPLOYMENT, { namespace: NS, name: 'web' }, 'merge', { spec: { replicas: 3 } });
    await rolledOut('web');
    assert.equal((await listPods('web')).length, 3);
    const [victim] = await listPods('web');
    await c.delete(POD, { namespace: NS, name: victim.metadata.name ?? '' });
    const replaced = await waitFor('a replacement pod', async () => {
      const pods = await listPods('web');
      return pods.length === 3 && !pods.some((p) => p.metadata.name === victim.metadata.name) && pods.every((p) => p.status?.phase === 'Running') ? pods : undefined;
    });
    assert.equal(replaced.length, 3);
    await c.patch(DEPLOYMENT, { namespace: NS, name: 'web' }, 'merge', { spec: { replicas: 1 } });
    const d = await rolledOut('web');
    assert.equal(d.status?.readyReplicas, 1);
    await waitFor('one pod left', async () => (await listPods('web')).length === 1);
  });

  it('a paused Deployment starts no rollout until it is resumed', async () => {
    await c.patch(DEPLOYMENT, { namespace: NS, name: 'web' }, 'merge', { spec: { paused: true, template: { spec: { containers: [{ name: 'main', image: 'nginx:paused' }] } } } });
    const paused = await waitFor('the paused condition', async () => {
      const d = await get(DEPLOYMENT, 'web');
      return cond(d, 'Progressing')?.reason === 'DeploymentPaused' && d.status?.observedGeneration === d.metadata.generation ? d : undefined;
    });
    assert.equal(cond(paused, 'Progressing')?.status, 'Unknown');
    assert.ok((await listRs('web')).every((rs) => !JSON.stringify(rs.spec).includes('nginx:paused')), 'no ReplicaSet for the new template');
    await c.patch(DEPLOYMENT, { namespace: NS, name: 'web' }, 'merge', { spec: { paused: false } });
    await rolledOut('web');
    assert.ok((await listRs('web')).some((rs) => JSON.stringify(rs.spec).includes('nginx:paused') && rs.spec?.replicas === 1));
  });

  it('a pod no node fits stays Pending as Unschedulable, and runs once a node fits', async () => {
    await c.create(deployment('picky', 'nginx', { replicas: 1, template: { metadata: { labels: { app: 'picky' } }, spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'main', image: 'nginx' }] } } }));
    const pending = await waitFor('an unschedulable pod', async () => {
      const [p] = await listPods('picky');
      return p && cond(p, 'PodScheduled')?.reason === 'Unschedulable' ? p : undefined;
    });
    assert.equal(pending.status?.phase, 'Pending');
    assert.equal(cond(pending, 'PodScheduled')?.message, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.");
    // The scheduler's decision, once, at info with the cluster and the pod.
    const logged = log.matching('pod unschedulable', { cluster: CLUSTER, pod: `${NS}/${pending.metadata.name ?? ''}` });
    assert.deepEqual(logged.map((r) => [r.level, r.fields.reason]), [['info', cond(pending, 'PodScheduled')?.message]]);
    const d = await waitFor('the Deployment unavailable', async () => {
      const x = await get(DEPLOYMENT, 'picky');
      return cond(x, 'Available')?.reason === 'MinimumReplicasUnavailable' ? x : undefined;
    });
    assert.equal(d.status?.unavailableReplicas, 1);

    const node2 = await c.get(NODE, { name: 'node-2' });
    await c.update({ ...node2, metadata: { ...node2.metadata, labels: { ...node2.metadata.labels, disk: 'ssd' } } });
    await rolledOut('picky');
    const [running] = await listPods('picky');
    assert.equal(running.metadata.name, pending.metadata.name, 'the same pod, bound now');
    assert.equal(running.spec?.nodeName, 'node-2');
    assert.equal(cond(running, 'PodScheduled')?.status, 'True');
  });

  it('writes nothing while nothing changes, though it looks at every object again', async () => {
    const cluster = server.cluster(CLUSTER);
    await waitFor('every Deployment rolled out', () =>
      cluster.store.list('apps/deployments').every((o) => {
        const d = JSON.parse(o.json) as Obj;
        return d.status?.observedGeneration === d.metadata.generation && cond(d, 'Progressing')?.reason === 'NewReplicaSetAvailable';
      }),
    );
    const objects = ['apps/deployments', 'apps/replicasets', '/pods'].reduce((n, r) => n + cluster.store.list(r).length, 0);
    await waitFor('the simulation to settle', async () => {
      const before = cluster.store.rv;
      await new Promise((r) => setTimeout(r, 200));
      return cluster.store.rv === before;
    });
    const rv = cluster.store.rv;
    const passes = kubelet.passes;
    // Attaching again queues a pass over every Deployment, ReplicaSet and Pod of the cluster.
    kubelet.detach(CLUSTER);
    kubelet.attach(CLUSTER);
    await waitFor('a pass over every object', () => kubelet.passes >= passes + objects);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(cluster.store.rv, rv, 'no write');
  });

  it('a deleted Deployment takes its ReplicaSets and pods with it', async () => {
    await c.delete(DEPLOYMENT, { namespace: NS, name: 'hist' });
    await waitFor('the ReplicaSets and pods gone', async () => (await listRs('hist')).length === 0 && (await listPods('hist')).length === 0);
  });
});
