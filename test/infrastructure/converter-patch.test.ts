// Patching an existing Shoot: versions Gardener auto-updated are not downgraded, zone orders are kept,
// removed worker pools are removed; and the plan works against the embedded API server's
// server-side apply, where Gardener co-owns fields of the worker pools.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { crdOf } from '../../src/api/crd.js';
import { Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { planShootPatch, toShoot } from '../../src/infrastructure/converter/index.js';
import { clientFromKubeconfig, type HttpClient, isNoKindMatch, isNotFound } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { converterConfig, IMAGE_VERSION, runtimeFor } from './converter-fixtures.js';
import { sleep } from '../../src/util/sleep.js';

const project = 'kyma-dev';

type AwsZones = { networks: { zones: { name: string; workers: string; public: string; internal: string }[] } };

function awsRuntimeWithExtraPool(zones: string[] = ['eu-central-1a']) {
  return runtimeFor('aws', (r) => {
    r.spec.shoot.provider.additionalWorkers = [{ name: 'extra', machine: { type: 'm6i.xlarge' }, minimum: 1, maximum: 3, zones }];
  });
}

describe('patch semantics', () => {
  test('a worker pool that disappeared from the Runtime is listed for removal with a guarded JSON patch', () => {
    const existing = toShoot(awsRuntimeWithExtraPool(), converterConfig(), { project });
    existing.metadata.resourceVersion = '42';
    const plan = planShootPatch(runtimeFor('aws'), converterConfig(), { project, existing });
    assert.deepEqual(plan.shoot.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0']);
    assert.deepEqual(plan.removedWorkers, ['extra']);
    assert.deepEqual(plan.workerRemovalPatch, [
      { op: 'test', path: '/metadata/resourceVersion', value: '42' },
      { op: 'test', path: '/spec/provider/workers/1/name', value: 'extra' },
      { op: 'remove', path: '/spec/provider/workers/1' },
    ]);
    assert.deepEqual(planShootPatch(awsRuntimeWithExtraPool(), converterConfig(), { project, existing }).workerRemovalPatch, [], 'nothing to remove');
  });

  test('a zone added to a worker pool is appended after the zones Gardener has, and existing zone subnets do not move', () => {
    const existing = toShoot(runtimeFor('aws', (r) => (r.spec.shoot.provider.workers[0].zones = ['eu-central-1b', 'eu-central-1a'])), converterConfig(), { project });
    const before = (existing.spec.provider.infrastructureConfig as AwsZones).networks.zones;
    // The Runtime lists the zones in another order and adds one.
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.provider.workers[0].zones = ['eu-central-1a', 'eu-central-1c', 'eu-central-1b']));
    const shoot = toShoot(rt, converterConfig(), { project, existing });
    assert.deepEqual(shoot.spec.provider.workers?.[0].zones, ['eu-central-1b', 'eu-central-1a', 'eu-central-1c']);
    const after = (shoot.spec.provider.infrastructureConfig as AwsZones).networks.zones;
    assert.deepEqual(after.slice(0, 2), before, 'the subnets of existing zones are unchanged');
    assert.deepEqual(after[2], { name: 'eu-central-1c', workers: '10.250.128.0/19', public: '10.250.160.0/20', internal: '10.250.176.0/20' });
  });

  test('infrastructure zones no worker uses any more keep their subnets', () => {
    const existing = toShoot(awsRuntimeWithExtraPool(['eu-central-1a', 'eu-central-1b', 'eu-central-1c']), converterConfig(), { project });
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.provider.workers[0].zones = ['eu-central-1c']));
    const zones = (toShoot(rt, converterConfig(), { project, existing }).spec.provider.infrastructureConfig as AwsZones).networks.zones;
    assert.deepEqual(zones.map((z) => z.name), ['eu-central-1a', 'eu-central-1b', 'eu-central-1c']);
  });

  test('the Kubernetes version Gardener auto-updated is not downgraded; a higher Runtime version wins', () => {
    const existing = toShoot(runtimeFor('aws'), converterConfig(), { project });
    existing.spec.kubernetes = { ...existing.spec.kubernetes, version: '1.32.9' };
    assert.equal(toShoot(runtimeFor('aws'), converterConfig(), { project, existing }).spec.kubernetes?.version, '1.32.9', 'default 1.32.3 < live 1.32.9');
    const newer = runtimeFor('aws', (r) => (r.spec.shoot.kubernetes = { version: '1.33.1' }));
    assert.equal(toShoot(newer, converterConfig(), { project, existing }).spec.kubernetes?.version, '1.33.1');
  });

  test('a machine image version Gardener auto-updated is not downgraded; another image name takes the Runtime\'s version', () => {
    const existing = toShoot(runtimeFor('aws'), converterConfig(), { project });
    const live = existing.spec.provider.workers?.[0];
    assert.ok(live?.machine.image);
    live.machine.image.version = '1592.12.0';
    const kept = toShoot(runtimeFor('aws'), converterConfig(), { project, existing });
    assert.deepEqual(kept.spec.provider.workers?.[0].machine.image, { name: 'gardenlinux', version: '1592.12.0' });
    const raised = toShoot(runtimeFor('aws', (r) => (r.spec.shoot.provider.workers[0].machine.image = { name: 'gardenlinux', version: '1593.0.0' })), converterConfig(), { project, existing });
    assert.equal(raised.spec.provider.workers?.[0].machine.image?.version, '1593.0.0');
    live.machine.image.name = 'ubuntu';
    const other = toShoot(runtimeFor('aws'), converterConfig(), { project, existing });
    assert.deepEqual(other.spec.provider.workers?.[0].machine.image, { name: 'gardenlinux', version: IMAGE_VERSION });
  });

  test('a patch keeps the Shoot\'s other extensions and DNS, and recomputes the networking filter', () => {
    const existing = toShoot(runtimeFor('aws'), converterConfig(), { project });
    existing.spec.extensions = [...(existing.spec.extensions ?? []), { type: 'shoot-lakom-service', disabled: false }];
    const rt = runtimeFor('aws', (r) => (r.spec.security.networking.filter.egress.enabled = true));
    const shoot = toShoot(rt, converterConfig((c) => delete c.dns), { project, existing });
    assert.deepEqual(shoot.spec.extensions?.map((e) => e.type), ['shoot-networking-filter', 'shoot-cert-service', 'shoot-dns-service', 'shoot-oidc-service', 'shoot-lakom-service']);
    assert.deepEqual(shoot.spec.extensions?.[0], { type: 'shoot-networking-filter', disabled: false });
    assert.deepEqual(shoot.spec.dns, existing.spec.dns, 'the immutable domain stays');
  });

  test('the GCP control plane stays in the zone it was created in', () => {
    const existing = toShoot(runtimeFor('gcp'), converterConfig(), { project });
    const rt = runtimeFor('gcp', (r) => (r.spec.shoot.provider.workers[0].zones = ['europe-west3-b', 'europe-west3-c']));
    assert.equal((toShoot(rt, converterConfig(), { project, existing }).spec.provider.controlPlaneConfig as { zone: string }).zone, 'europe-west3-a');
  });

  test('the provider of a live Shoot cannot change', () => {
    const existing = toShoot(runtimeFor('aws'), converterConfig(), { project });
    assert.throws(() => toShoot(runtimeFor('gcp'), converterConfig(), { project, existing }), { name: 'ConversionError', field: 'spec.shoot.provider.type' });
  });
});

describe('against the embedded API server', () => {
  let server: RunningApiServer;
  let client: HttpClient;
  const MANAGER = 'infrastructure-manager';
  const key = { namespace: `garden-${project}`, name: 'c-1234567' };

  before(async () => {
    server = await startApiServer({ port: 0 });
    const access = await server.createCluster('garden');
    client = clientFromKubeconfig(access.kubeconfig, { qps: 0 });
    await client.create(crdOf(Shoot) as KubeObject);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: key.namespace } });
    // Wait until the Shoot kind is served.
    for (let i = 0; ; i++) {
      try {
        await client.list(Shoot, { namespace: key.namespace });
        break;
      } catch (err) {
        if (!isNoKindMatch(err) && !isNotFound(err)) throw err;
        if (i > 100) throw err;
        await sleep(20);
      }
    }
  });
  after(async () => {
    client.close();
    await server.stop();
  });

  test('Shoots of every provider are accepted by the Shoot schema', async () => {
    for (const provider of ['aws', 'azure', 'gcp', 'openstack', 'alicloud'] as const) {
      const shoot = toShoot(runtimeFor(provider), converterConfig(), { project });
      shoot.metadata.name = `s-${provider}`;
      const applied = await client.apply(shoot, { fieldManager: MANAGER, force: true });
      assert.deepEqual(applied.spec.provider.infrastructureConfig, shoot.spec.provider.infrastructureConfig, provider);
    }
  });

  test('a worker pool Gardener wrote into is removed by the removal patch plus apply, and zone order and versions survive', async () => {
    const config = converterConfig();
    await client.apply(toShoot(awsRuntimeWithExtraPool(), config, { project }), { fieldManager: MANAGER, force: true });

    // Gardener's maintenance updates the machine image of both pools and the Kubernetes version.
    const live = await client.get<ShootObject>(Shoot, key);
    for (const w of live.spec.provider.workers ?? []) if (w.machine.image) w.machine.image.version = '1592.12.0';
    live.spec.kubernetes = { ...live.spec.kubernetes, version: '1.32.8' };
    await client.update(live, { fieldManager: 'gardener' });

    // The Runtime drops the extra pool and adds a zone to the main pool.
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.provider.workers[0].zones = ['eu-central-1c', 'eu-central-1d', 'eu-central-1a', 'eu-central-1b']));
    const current = await client.get<ShootObject>(Shoot, key);
    const plan = planShootPatch(rt, config, { project, existing: current });
    assert.deepEqual(plan.removedWorkers, ['extra']);
    await client.patch(Shoot, key, 'json', plan.workerRemovalPatch, { fieldManager: MANAGER });
    const result = await client.apply(plan.shoot, { fieldManager: MANAGER, force: true });

    assert.deepEqual(result.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0']);
    const [main] = result.spec.provider.workers ?? [];
    assert.deepEqual(main.zones, ['eu-central-1a', 'eu-central-1b', 'eu-central-1c', 'eu-central-1d']);
    assert.equal(main.machine.image?.version, '1592.12.0');
    assert.equal(result.spec.kubernetes?.version, '1.32.8');
    const zones = (result.spec.provider.infrastructureConfig as AwsZones).networks.zones;
    assert.deepEqual(zones.map((z) => z.workers), ['10.250.0.0/19', '10.250.64.0/19', '10.250.128.0/19', '10.250.192.0/22']);
  });

  test('the removal patch fails instead of removing the wrong pool when the Shoot changed in between', async () => {
    await client.apply(toShoot(awsRuntimeWithExtraPool(), converterConfig(), { project }), { fieldManager: MANAGER, force: true });
    const stale = await client.get<ShootObject>(Shoot, key);
    const plan = planShootPatch(runtimeFor('aws'), converterConfig(), { project, existing: stale });
    await client.patch(Shoot, key, 'merge', { metadata: { labels: { touched: 'yes' } } }, { fieldManager: 'someone' });
    await assert.rejects(client.patch(Shoot, key, 'json', plan.workerRemovalPatch, { fieldManager: MANAGER }));
    const still = await client.get<ShootObject>(Shoot, key);
    assert.deepEqual(still.spec.provider.workers?.map((w) => w.name), ['cpu-worker-0', 'extra']);
  });
});
