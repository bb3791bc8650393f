// Cluster preparation against a runtime cluster of the embedded API server: kyma-system, the
// kyma-provisioning-info ConfigMap, OpenIDConnect resources and the administrators' cluster-admin
// bindings — idempotent, and never touching what the control plane did not create.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { type RuntimeObject, Runtime } from '../../src/api/infrastructuremanager/index.js';
import type { ShootObject } from '../../src/api/gardener/index.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import {
  adminBindingLabels,
  CLUSTER_ROLE_BINDING_KIND,
  type ClusterRoleBindingObject,
  KYMA_SYSTEM_NAMESPACE,
  OPENID_CONNECT_KIND,
  prepareCluster,
  PreparationError,
  PROVISIONING_INFO_CONFIGMAP,
} from '../../src/infrastructure/preparation/index.js';
import { clientFromKubeconfig, type HttpClient, isNotFound } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { waitFor } from '../support/wait.js';

function testRuntime(name: string, administrators: string[], oidc?: { issuerURL: string; clientID: string }[]): RuntimeObject {
  return {
    apiVersion: Runtime.apiVersion,
    kind: Runtime.kind,
    metadata: {
      name,
      namespace: 'kcp-system',
      labels: {
        'kyma-project.io/global-account-id': 'ga-1',
        'kyma-project.io/subaccount-id': 'sa-1',
        'kyma-project.io/instance-id': 'inst-1',
        'operator.kyma-project.io/kyma-name': name,
        'kyma-project.io/runtime-id': name,
      },
    },
    spec: {
      shoot: {
        name,
        purpose: 'production',
        platformRegion: 'cf-eu11',
        region: 'eu-central-1',
        secretBindingName: 'aws-binding',
        provider: {
          type: 'aws',
          workers: [{ name: 'cpu-worker-0', machine: { type: 'm6i.large' }, minimum: 3, maximum: 20, zones: ['eu-central-1a', 'eu-central-1b', 'eu-central-1c'] }],
          additionalWorkers: [{ name: 'gpu', machine: { type: 'g5.xlarge' }, minimum: 0, maximum: 2, zones: ['eu-central-1a'] }],
          infrastructureConfig: { apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1', kind: 'InfrastructureConfig', networks: { vpc: { cidr: '10.250.0.0/16' } } },
        },
        networking: { pods: '100.64.0.0/12', nodes: '10.250.0.0/16', services: '100.104.0.0/13' },
        ...(oidc ? { kubernetes: { kubeAPIServer: { additionalOidcConfig: oidc } } } : {}),
      },
      security: { administrators, networking: { filter: { egress: { enabled: false } } } },
    },
  };
}

/** A minimal stand-in for the CRD Gardener's OIDC extension installs in a shoot. */
const openIDConnectCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'openidconnects.authentication.gardener.cloud' },
  spec: {
    group: 'authentication.gardener.cloud',
    scope: 'Cluster',
    names: { plural: 'openidconnects', singular: 'openidconnect', kind: 'OpenIDConnect', listKind: 'OpenIDConnectList' },
    versions: [{ name: 'v1alpha1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

describe('cluster preparation', () => {
  let server: RunningApiServer;
  const clients: HttpClient[] = [];

  async function runtimeCluster(name: string): Promise<HttpClient> {
    const access = await server.createCluster(name);
    const c = clientFromKubeconfig(access.kubeconfig);
    clients.push(c);
    return c;
  }

  async function adminBindings(remote: HttpClient): Promise<ClusterRoleBindingObject[]> {
    return (await remote.list<ClusterRoleBindingObject>(CLUSTER_ROLE_BINDING_KIND)).items.filter((b) => b.roleRef.name === 'cluster-admin' && b.metadata.name?.startsWith('admin-'));
  }

  before(async () => {
    server = await startApiServer({ port: 0 });
  });
  after(async () => {
    for (const c of clients) c.close();
    await server.stop();
  });

  it('creates kyma-system, the provisioning-info ConfigMap and one cluster-admin binding per administrator', async () => {
    const remote = await runtimeCluster('prep-basic');
    const runtime = testRuntime('prep-basic', ['alice@example.com', 'bob@example.com']);
    const result = await prepareCluster(remote, runtime, { oidcExtensionEnabled: false });

    await remote.get({ apiVersion: 'v1', kind: 'Namespace' }, { name: KYMA_SYSTEM_NAMESPACE });
    const cm = await remote.get<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: KYMA_SYSTEM_NAMESPACE, name: PROVISIONING_INFO_CONFIGMAP });
    assert.equal(cm.metadata.labels?.['reconciler.kyma-project.io/managed-by'], 'infrastructure-manager');
    const details = yaml.load(cm.data.details) as Record<string, unknown>;
    assert.deepEqual(details.workerPools, {
      kyma: { name: 'cpu-worker-0', machineType: 'm6i.large', haZones: true, autoScalerMin: 3, autoScalerMax: 20 },
      custom: [{ name: 'gpu', machineType: 'g5.xlarge', haZones: false, autoScalerMin: 0, autoScalerMax: 2 }],
    });
    assert.equal(details.globalAccountID, 'ga-1');
    assert.equal(details.subaccountID, 'sa-1');
    assert.equal(details.environmentInstanceID, 'inst-1');
    assert.equal(details.instanceName, 'prep-basic');
    assert.deepEqual(details.networkDetails, { dualStackIPEnabled: false });
    assert.deepEqual((details.infrastructureConfig as { networks: unknown }).networks, { vpc: { cidr: '10.250.0.0/16' } });

    const bindings = await adminBindings(remote);
    assert.equal(bindings.length, 2);
    for (const b of bindings) {
      for (const [k, v] of Object.entries(adminBindingLabels)) assert.equal(b.metadata.labels?.[k], v);
      assert.deepEqual(b.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' });
    }
    assert.deepEqual(bindings.flatMap((b) => (b.subjects ?? []).map((s) => `${s.kind}:${s.name}`)).sort(), ['User:alice@example.com', 'User:bob@example.com']);
    assert.equal(result.administrators.created.length, 2);
    assert.deepEqual(
      result.conditions.map((c) => [c.type, c.status, c.reason]),
      [
        ['OidcAndConfigMapConfigured', 'True', 'OidcAndConfigMapsConfigured'],
        ['Configured', 'True', 'AdministratorsConfigured'],
      ],
    );
  });

  it('preparing the same runtime again changes nothing', async () => {
    const remote = await runtimeCluster('prep-again');
    const runtime = testRuntime('prep-again', ['alice@example.com', 'bob@example.com']);
    await prepareCluster(remote, runtime, { oidcExtensionEnabled: false });
    const before = (await adminBindings(remote)).map((b) => b.metadata.name).sort();
    const second = await prepareCluster(remote, runtime, { oidcExtensionEnabled: false });
    assert.deepEqual(second.administrators.created, []);
    assert.deepEqual(second.administrators.deleted, []);
    assert.deepEqual(second.administrators.kept.sort(), ['alice@example.com', 'bob@example.com']);
    assert.deepEqual((await adminBindings(remote)).map((b) => b.metadata.name).sort(), before);
  });

  it('removing an administrator deletes only the binding the control plane created for them', async () => {
    const remote = await runtimeCluster('prep-remove');
    await prepareCluster(remote, testRuntime('prep-remove', ['alice@example.com', 'bob@example.com']), { oidcExtensionEnabled: false });
    // Someone else's binding for bob (no control-plane labels) must survive bob's removal.
    await remote.create({
      ...CLUSTER_ROLE_BINDING_KIND,
      metadata: { name: 'admin-by-hand', labels: { app: 'kyma' } },
      subjects: [{ kind: 'User', name: 'bob@example.com', apiGroup: 'rbac.authorization.k8s.io' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    });

    const result = await prepareCluster(remote, testRuntime('prep-remove', ['alice@example.com']), { oidcExtensionEnabled: false });
    assert.equal(result.administrators.deleted.length, 1);
    const left = await adminBindings(remote);
    assert.deepEqual(left.map((b) => `${b.metadata.name === 'admin-by-hand' ? 'foreign' : 'ours'}:${b.subjects?.[0]?.name}`).sort(), ['foreign:bob@example.com', 'ours:alice@example.com']);
  });

  it('keeps one OpenIDConnect resource per additional OIDC config and leaves foreign ones alone', async () => {
    const remote = await runtimeCluster('prep-oidc');
    await remote.create(openIDConnectCrd);
    await waitFor('OpenIDConnect served', async () => {
      try {
        await remote.list(OPENID_CONNECT_KIND);
        return true;
      } catch {
        return false;
      }
    });
    await remote.create({ ...OPENID_CONNECT_KIND, metadata: { name: 'customer-oidc' }, spec: { issuerURL: 'https://customer.example.com', clientID: 'c' } });
    const two = [
      { issuerURL: 'https://a.accounts.ondemand.com', clientID: 'client-a' },
      { issuerURL: 'https://b.accounts.ondemand.com', clientID: 'client-b' },
    ];
    const first = await prepareCluster(remote, testRuntime('prep-oidc', ['alice@example.com'], two));
    assert.deepEqual(first.oidc.applied, ['kyma-oidc-0', 'kyma-oidc-1']);
    const oidc1 = await remote.get<KubeObject & { spec: Record<string, unknown> }>(OPENID_CONNECT_KIND, { name: 'kyma-oidc-1' });
    assert.equal(oidc1.spec.issuerURL, 'https://b.accounts.ondemand.com');
    assert.equal(oidc1.spec.clientID, 'client-b');
    assert.equal(oidc1.metadata.labels?.['operator.kyma-project.io/managed-by'], 'infrastructure-manager');

    const second = await prepareCluster(remote, testRuntime('prep-oidc', ['alice@example.com'], two.slice(0, 1)));
    assert.deepEqual(second.oidc.deleted, ['kyma-oidc-1']);
    await assert.rejects(remote.get(OPENID_CONNECT_KIND, { name: 'kyma-oidc-1' }), isNotFound);
    await remote.get(OPENID_CONNECT_KIND, { name: 'kyma-oidc-0' });
    await remote.get(OPENID_CONNECT_KIND, { name: 'customer-oidc' });
  });

  it('uses the default OIDC provider when the runtime names none, and skips OIDC when the Shoot has the extension disabled', async () => {
    const remote = await runtimeCluster('prep-oidc-default');
    await remote.create(openIDConnectCrd);
    await waitFor('OpenIDConnect served', async () => remote.list(OPENID_CONNECT_KIND).then(() => true, () => false));
    const defaultOidc = { issuerURL: 'https://kyma.accounts.ondemand.com', clientID: 'shared', usernameClaim: 'sub', usernamePrefix: '-', groupsClaim: 'groups', signingAlgs: ['RS256' as const] };
    const runtime = testRuntime('prep-oidc-default', ['alice@example.com']);
    const result = await prepareCluster(remote, runtime, { defaultOidc });
    assert.deepEqual(result.oidc.applied, ['kyma-oidc-0']);
    const o = await remote.get<KubeObject & { spec: Record<string, unknown> }>(OPENID_CONNECT_KIND, { name: 'kyma-oidc-0' });
    assert.deepEqual(o.spec, { issuerURL: 'https://kyma.accounts.ondemand.com', clientID: 'shared', usernameClaim: 'sub', usernamePrefix: '-', groupsClaim: 'groups', supportedSigningAlgs: ['RS256'] });

    const shoot = { spec: { extensions: [{ type: 'shoot-oidc-service', disabled: true }], provider: { type: 'aws' } } } as unknown as ShootObject;
    const skipped = await prepareCluster(remote, testRuntime('prep-oidc-default', ['alice@example.com'], []), { shoot, defaultOidc });
    assert.equal(skipped.oidc.configured, false);
    assert.equal(skipped.conditions[0]?.message, 'OIDC extension disabled');
    await remote.get(OPENID_CONNECT_KIND, { name: 'kyma-oidc-0' });
  });

  it('reports the failed step as a Runtime condition', async () => {
    const access = await server.createCluster('prep-denied');
    // A kubeconfig whose token the cluster does not accept: the first step fails.
    const remote = clientFromKubeconfig(access.kubeconfig.replace(access.token, 'not-a-valid-token'), { retries: 0 });
    clients.push(remote);
    const err = await prepareCluster(remote, testRuntime('prep-denied', ['alice@example.com'])).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof PreparationError, `expected a PreparationError, got ${String(err)}`);
    assert.deepEqual([err.condition.type, err.condition.status, err.condition.reason], ['OidcAndConfigMapConfigured', 'False', 'KymaSystemNSError']);
  });
});
