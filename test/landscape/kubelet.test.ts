// The kubelet simulation: workloads in a shoot cluster become ready as their controllers would
// report it, again after every spec change; clusters are picked up by name and released when gone.
import assert from 'node:assert/strict';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { createSelfSigned } from '../../src/apiserver/pki.js';
import { type Client, clientFromKubeconfig } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Landscape, startLandscape, testShoot, waitFor } from '../support/landscape.js';

const DEPLOYMENT = { apiVersion: 'apps/v1', kind: 'Deployment' };
const STATEFULSET = { apiVersion: 'apps/v1', kind: 'StatefulSet' };
const DAEMONSET = { apiVersion: 'apps/v1', kind: 'DaemonSet' };

type Status = Record<string, unknown> & { conditions?: { type: string; status: string; reason?: string }[] };

function workload(kind: { apiVersion: string; kind: string }, name: string, extra: Record<string, unknown> = {}): KubeObject {
  const labels = { app: name };
  return {
    ...kind,
    metadata: { name, namespace: 'kyma-system' },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'main', image: 'europe-docker.pkg.dev/kyma/manager:1.0.0' }] } }, ...extra },
  };
}

describe('kubelet simulation', () => {
  let l: Landscape;
  let shoot: Client;

  before(async () => {
    l = await startLandscape({ kubelet: { readyDelayMs: 100 }, extraKubeletClusters: (n) => n.startsWith('skr-') });
    await l.garden.create(testShoot('workloads', l.projectNamespace));
    await waitFor('the shoot cluster', async () => (await l.garden.get<ShootObject>(Shoot, { namespace: l.projectNamespace, name: 'workloads' })).status?.lastOperation?.state === 'Succeeded');
    shoot = l.shootClient('workloads');
    await shoot.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } });
  });
  after(async () => {
    await l.stop();
  });

  const statusOf = async (kind: { apiVersion: string; kind: string }, name: string, c: Client = shoot) =>
    ((await c.get(kind, { namespace: 'kyma-system', name })).status ?? {}) as Status;

  it('a Deployment in a shoot cluster becomes Available with all replicas ready, and again after it is scaled', async () => {
    await shoot.create(workload(DEPLOYMENT, 'manager', { replicas: 2 }));
    const ready = await waitFor('the Deployment to be ready', async () => {
      const s = await statusOf(DEPLOYMENT, 'manager');
      return s.readyReplicas === 2 ? s : undefined;
    });
    assert.equal(ready.observedGeneration, 1);
    assert.equal(ready.availableReplicas, 2);
    assert.equal(ready.updatedReplicas, 2);
    assert.equal(ready.conditions?.find((c) => c.type === 'Available')?.status, 'True');
    assert.equal(ready.conditions?.find((c) => c.type === 'Progressing')?.reason, 'NewReplicaSetAvailable');

    await shoot.patch(DEPLOYMENT, { namespace: 'kyma-system', name: 'manager' }, 'merge', { spec: { replicas: 3 } });
    const scaled = await waitFor('the scaled Deployment to be ready', async () => {
      const s = await statusOf(DEPLOYMENT, 'manager');
      return s.observedGeneration === 2 && s.readyReplicas === 3 ? s : undefined;
    });
    assert.equal(scaled.availableReplicas, 3);
  });

  it('StatefulSets and DaemonSets report every pod ready', async () => {
    await shoot.create(workload(STATEFULSET, 'db', { replicas: 2, serviceName: 'db' }));
    await shoot.create(workload(DAEMONSET, 'agent'));
    const sts = await waitFor('the StatefulSet', async () => {
      const s = await statusOf(STATEFULSET, 'db');
      return s.readyReplicas === 2 ? s : undefined;
    });
    assert.equal(sts.currentRevision, sts.updateRevision);
    const ds = await waitFor('the DaemonSet', async () => {
      const s = await statusOf(DAEMONSET, 'agent');
      return s.numberReady === 1 ? s : undefined;
    });
    assert.equal(ds.desiredNumberScheduled, 1);
    assert.equal(ds.observedGeneration, 1);
  });

  it('clusters matching extraKubeletClusters are picked up when created and released when deleted', async () => {
    const access = await l.server.createCluster('skr-test-1');
    await waitFor('the kubelet to attach', () => l.kubelet.attachedClusters().includes('skr-test-1'));
    const skr = clientFromKubeconfig(access.kubeconfig, { qps: 0 });
    try {
      await skr.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'kyma-system' } });
      await skr.create(workload(DEPLOYMENT, 'lifecycle-manager'));
      await waitFor('the Deployment in the SKR', async () => (await statusOf(DEPLOYMENT, 'lifecycle-manager', skr)).readyReplicas === 1);
    } finally {
      skr.close();
    }
    await l.server.deleteCluster('skr-test-1');
    await waitFor('the kubelet to detach', () => !l.kubelet.attachedClusters().includes('skr-test-1'));
    assert.ok(l.kubelet.attachedClusters().includes(l.shootClusterName('workloads')));
  });

  it('a hundred clusters with a Deployment each all become ready, with one commit listener per cluster', async () => {
    const names = Array.from({ length: 100 }, (_, i) => `skr-many-${i}`);
    for (const name of names) {
      await l.server.createCluster(name);
      l.kubelet.attach(name);
      const cluster = l.server.cluster(name);
      const t = cluster.resolve('apps', 'v1', 'deployments')!;
      await cluster.create(t, 'default', { ...workload(DEPLOYMENT, 'operator'), metadata: { name: 'operator', namespace: 'default' } });
    }
    await waitFor('every Deployment to be ready', () =>
      names.every((name) => {
        const cluster = l.server.cluster(name);
        const d = cluster.tryGet(cluster.resolve('apps', 'v1', 'deployments')!, 'default', 'operator');
        return (d?.status as { readyReplicas?: number } | undefined)?.readyReplicas === 1;
      }),
    );
    for (const name of names) await l.server.deleteCluster(name);
    await waitFor('the kubelet to release them', () => !l.kubelet.attachedClusters().some((n) => n.startsWith('skr-many-')));
  });

  it('writes the status through admission, as kube-controller-manager does: a status webhook sees it', async () => {
    const cert = await createSelfSigned({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'] });
    const seen: { resource: string; subresource: string; user: string }[] = [];
    const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        const review = JSON.parse(body) as { request: { uid: string; resource: { resource: string }; subResource?: string; userInfo?: { username?: string } } };
        seen.push({ resource: review.request.resource.resource, subresource: review.request.subResource ?? '', user: review.request.userInfo?.username ?? '' });
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      await shoot.create({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'status-watch' },
        webhooks: [
          {
            name: 'status.watch.test',
            clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle: Buffer.from(cert.certPem).toString('base64') },
            rules: [{ operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments/status'] }],
            failurePolicy: 'Fail',
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
          },
        ],
      } as unknown as KubeObject);
      await shoot.create(workload(DEPLOYMENT, 'watched'));
      await waitFor('the Deployment to be available', async () => (await statusOf(DEPLOYMENT, 'watched')).availableReplicas === 1);
      assert.ok(
        seen.some((s) => s.resource === 'deployments' && s.subresource === 'status' && s.user === 'system:kube-controller-manager'),
        `the webhook saw the kubelet's status write (saw ${JSON.stringify(seen)})`,
      );
    } finally {
      await shoot.delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration' }, { name: 'status-watch' }).catch(() => undefined);
      server.close();
    }
  });
});
