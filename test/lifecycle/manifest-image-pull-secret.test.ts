// The runtime image-pull Secret in rendered module objects (upstream's SKR image pull secret
// transform): Deployments and StatefulSets reference it and tell their containers its name; other
// kinds are left alone; a manifest that sets the reserved variable itself is refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../src/kube/object.js';
import { RenderError } from '../../src/lifecycle/manifest/errors.js';
import { addImagePullSecret, SKR_IMAGE_PULL_SECRET_ENV } from '../../src/lifecycle/manifest/images.js';

const workload = (kind: string, containers: unknown[], imagePullSecrets?: unknown[]): KubeObject => ({
  apiVersion: kind === 'Job' ? 'batch/v1' : 'apps/v1',
  kind,
  metadata: { name: `${kind.toLowerCase()}-a` },
  spec: { template: { spec: { containers, ...(imagePullSecrets ? { imagePullSecrets } : {}) } } },
});

describe('runtime image-pull Secret in module workloads', () => {
  it('Deployments and StatefulSets gain the pull Secret and the env of every container; other kinds stay as they are', () => {
    const objects = [
      workload('Deployment', [{ name: 'manager', env: [{ name: 'A', value: '1' }] }, { name: 'proxy' }], [{ name: 'own' }]),
      workload('StatefulSet', [{ name: 'db' }]),
      workload('Job', [{ name: 'once' }]),
    ];
    addImagePullSecret(objects, 'pull');
    const spec = (o: KubeObject) => (o.spec as { template: { spec: { imagePullSecrets?: unknown; containers: { env?: unknown }[] } } }).template.spec;
    assert.deepEqual(spec(objects[0]).imagePullSecrets, [{ name: 'own' }, { name: 'pull' }]);
    assert.deepEqual(spec(objects[0]).containers.map((c) => c.env), [[{ name: 'A', value: '1' }, { name: SKR_IMAGE_PULL_SECRET_ENV, value: 'pull' }], [{ name: SKR_IMAGE_PULL_SECRET_ENV, value: 'pull' }]]);
    assert.deepEqual(spec(objects[1]).imagePullSecrets, [{ name: 'pull' }]);
    assert.equal(spec(objects[2]).imagePullSecrets, undefined);
    assert.equal(spec(objects[2]).containers[0].env, undefined);
  });

  it('a container that sets SKR_IMG_PULL_SECRET itself is a render error', () => {
    const objects = [workload('Deployment', [{ name: 'manager', env: [{ name: SKR_IMAGE_PULL_SECRET_ENV, value: 'mine' }] }])];
    assert.throws(() => addImagePullSecret(objects, 'pull'), (e: unknown) => e instanceof RenderError && e.message.includes('SKR_IMG_PULL_SECRET environment variable already exists'));
  });
});
