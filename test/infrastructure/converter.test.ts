// Runtime -> Shoot per provider: zones and subnet CIDRs, provider configs, workers, extensions,
// defaults, labels and annotations, and conversion errors that name the Runtime field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConversionError, toShoot } from '../../src/infrastructure/converter/index.js';
import { converterConfig, IMAGE_VERSION, runtimeFor } from './converter-fixtures.js';

const project = 'kyma-dev';

function conversionError(fn: () => unknown, field: string | RegExp): ConversionError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ConversionError, `expected a ConversionError, got ${String(err)}`);
    if (typeof field === 'string') assert.equal(err.field, field);
    else assert.match(err.field, field);
    return err;
  }
  assert.fail('expected a ConversionError');
}

describe('AWS', () => {
  test('an AWS Runtime becomes a Shoot with workers, public and internal subnets per zone carved from the node network', () => {
    const shoot = toShoot(runtimeFor('aws'), converterConfig(), { project });
    const provider = shoot.spec.provider;
    assert.equal(provider.type, 'aws');
    assert.deepEqual(provider.infrastructureConfig, {
      apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'InfrastructureConfig',
      networks: {
        vpc: { cidr: '10.250.0.0/16' },
        zones: [
          { name: 'eu-central-1a', workers: '10.250.0.0/19', public: '10.250.32.0/20', internal: '10.250.48.0/20' },
          { name: 'eu-central-1b', workers: '10.250.64.0/19', public: '10.250.96.0/20', internal: '10.250.112.0/20' },
          { name: 'eu-central-1c', workers: '10.250.128.0/19', public: '10.250.160.0/20', internal: '10.250.176.0/20' },
        ],
      },
    });
    assert.deepEqual(provider.controlPlaneConfig, { apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1', kind: 'ControlPlaneConfig' });
    assert.deepEqual(provider.workersSettings, { sshAccess: { enabled: false } });
    assert.equal(shoot.spec.cloudProfileName, 'aws');
    assert.deepEqual(shoot.spec.cloudProfile, { kind: 'CloudProfile', name: 'aws' });
  });

  test('AWS workers get the default machine image and an IMDSv2 worker config', () => {
    const shoot = toShoot(runtimeFor('aws'), converterConfig(), { project });
    const [worker] = shoot.spec.provider.workers ?? [];
    assert.deepEqual(worker.machine, { type: 'm6i.large', image: { name: 'gardenlinux', version: IMAGE_VERSION } });
    assert.deepEqual(worker.providerConfig, {
      apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'WorkerConfig',
      instanceMetadataOptions: { httpTokens: 'required', httpPutResponseHopLimit: 2 },
    });
    const without = toShoot(runtimeFor('aws'), converterConfig((c) => (c.provider = { aws: { enableIMDSv2: false } })), { project });
    assert.equal(without.spec.provider.workers?.[0].providerConfig, undefined);
  });

  test('zones of additional workers get subnets too; zones four to eight get small /22 subnets after the first three', () => {
    const rt = runtimeFor('aws', (r) => {
      r.spec.shoot.region = 'us-east-1';
      r.spec.shoot.provider.workers[0].zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
      r.spec.shoot.provider.additionalWorkers = [
        { name: 'extra', machine: { type: 'm6i.xlarge', image: { name: 'ubuntu', version: '24.4.1' } }, minimum: 0, maximum: 5, zones: ['us-east-1d', 'us-east-1a', 'us-east-1e'] },
      ];
    });
    const shoot = toShoot(rt, converterConfig(), { project });
    const zones = (shoot.spec.provider.infrastructureConfig as { networks: { zones: { name: string; workers: string; public: string; internal: string }[] } }).networks.zones;
    assert.deepEqual(zones.map((z) => z.name), ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1e']);
    assert.deepEqual(zones[3], { name: 'us-east-1d', workers: '10.250.192.0/22', public: '10.250.196.0/22', internal: '10.250.200.0/22' });
    assert.deepEqual(zones[4], { name: 'us-east-1e', workers: '10.250.204.0/22', public: '10.250.208.0/22', internal: '10.250.212.0/22' });
    const extra = shoot.spec.provider.workers?.[1];
    assert.equal(extra?.name, 'extra');
    assert.deepEqual(extra?.machine.image, { name: 'ubuntu', version: '24.4.1' }, 'a named image keeps its own version');
  });

  test('a /24 node network is split into /27 and /28 subnets', () => {
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.networking.nodes = '10.180.4.0/24'));
    const zones = (toShoot(rt, converterConfig(), { project }).spec.provider.infrastructureConfig as { networks: { zones: unknown[] } }).networks.zones;
    assert.deepEqual(zones[0], { name: 'eu-central-1a', workers: '10.180.4.0/27', public: '10.180.4.32/28', internal: '10.180.4.48/28' });
    assert.deepEqual(zones[2], { name: 'eu-central-1c', workers: '10.180.4.128/27', public: '10.180.4.160/28', internal: '10.180.4.176/28' });
  });

  test('a node network that cannot be split into zone subnets is a ConversionError naming spec.shoot.networking.nodes', () => {
    for (const nodes of ['10.0.0.0/8', '10.250.0.0/26']) {
      const err = conversionError(() => toShoot(runtimeFor('aws', (r) => (r.spec.shoot.networking.nodes = nodes)), converterConfig(), { project }), 'spec.shoot.networking.nodes');
      assert.match(err.message, /between 16 and 24/);
    }
  });

  test('a Runtime-provided infrastructure config is used as it is', () => {
    const own = { apiVersion: 'aws.provider.extensions.gardener.cloud/v1alpha1', kind: 'InfrastructureConfig', networks: { vpc: { id: 'vpc-123' }, zones: [] } };
    const shoot = toShoot(runtimeFor('aws', (r) => (r.spec.shoot.provider.infrastructureConfig = own)), converterConfig(), { project });
    assert.deepEqual(shoot.spec.provider.infrastructureConfig, own);
  });
});

describe('Azure, GCP, OpenStack, Alibaba Cloud', () => {
  test('Azure numbered zones get consecutive /19 subnets with NAT gateways in a zoned VNet', () => {
    const shoot = toShoot(runtimeFor('azure'), converterConfig(), { project });
    assert.equal(shoot.spec.cloudProfileName, 'az');
    assert.deepEqual(shoot.spec.provider.infrastructureConfig, {
      apiVersion: 'azure.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'InfrastructureConfig',
      networks: {
        vnet: { cidr: '10.250.0.0/16' },
        zones: [
          { name: 1, cidr: '10.250.0.0/19', natGateway: { enabled: true, idleConnectionTimeoutMinutes: 4 } },
          { name: 2, cidr: '10.250.32.0/19', natGateway: { enabled: true, idleConnectionTimeoutMinutes: 4 } },
          { name: 3, cidr: '10.250.64.0/19', natGateway: { enabled: true, idleConnectionTimeoutMinutes: 4 } },
        ],
      },
      zoned: true,
    });
    assert.deepEqual(shoot.spec.provider.controlPlaneConfig, { apiVersion: 'azure.provider.extensions.gardener.cloud/v1alpha1', kind: 'ControlPlaneConfig' });
    assert.equal(shoot.spec.provider.workers?.[0].providerConfig, undefined, 'IMDSv2 is AWS only');
  });

  test('an Azure zone that is not a number is a ConversionError naming the zone', () => {
    const rt = runtimeFor('azure', (r) => (r.spec.shoot.provider.workers[0].zones = ['1', 'westeurope-2']));
    conversionError(() => toShoot(rt, converterConfig(), { project }), 'spec.shoot.provider.workers[0].zones[1]');
  });

  test('GCP gets the node network as worker network and the first zone for the control plane', () => {
    const shoot = toShoot(runtimeFor('gcp'), converterConfig(), { project });
    assert.equal(shoot.spec.cloudProfileName, 'gcp');
    assert.deepEqual(shoot.spec.provider.infrastructureConfig, {
      apiVersion: 'gcp.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'InfrastructureConfig',
      networks: { worker: '10.250.0.0/16', workers: '10.250.0.0/16' },
    });
    assert.deepEqual(shoot.spec.provider.controlPlaneConfig, { apiVersion: 'gcp.provider.extensions.gardener.cloud/v1alpha1', kind: 'ControlPlaneConfig', zone: 'europe-west3-a' });
  });

  test('OpenStack gets the floating pool, F5 load balancers, the converged cloud profile and the internet exposure class', () => {
    const shoot = toShoot(runtimeFor('openstack'), converterConfig(), { project });
    assert.equal(shoot.spec.cloudProfileName, 'converged-cloud-kyma');
    assert.equal(shoot.spec.exposureClassName, 'converged-cloud-internet');
    assert.deepEqual(shoot.spec.provider.infrastructureConfig, {
      apiVersion: 'openstack.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'InfrastructureConfig',
      floatingPoolName: 'FloatingIP-external-kyma-01',
      networks: { workers: '10.250.0.0/16' },
    });
    assert.deepEqual(shoot.spec.provider.controlPlaneConfig, { apiVersion: 'openstack.provider.extensions.gardener.cloud/v1alpha1', kind: 'ControlPlaneConfig', loadBalancerProvider: 'f5' });
  });

  test('Alibaba Cloud gets a VPC with one /19 worker network per zone', () => {
    const shoot = toShoot(runtimeFor('alicloud'), converterConfig(), { project });
    assert.equal(shoot.spec.cloudProfileName, 'alicloud');
    assert.deepEqual(shoot.spec.provider.infrastructureConfig, {
      apiVersion: 'alicloud.provider.extensions.gardener.cloud/v1alpha1',
      kind: 'InfrastructureConfig',
      networks: {
        vpc: { cidr: '10.250.0.0/16' },
        zones: [
          { name: 'eu-central-1a', workers: '10.250.0.0/19' },
          { name: 'eu-central-1b', workers: '10.250.32.0/19' },
        ],
      },
    });
  });

  test('per-provider machine image defaults win over the global default', () => {
    const config = converterConfig((c) => (c.machineImage = { defaultName: 'gardenlinux', defaultVersion: IMAGE_VERSION, providers: { gcp: { name: 'gardenlinux', version: '1443.3.0' } } }));
    assert.equal(toShoot(runtimeFor('gcp'), config, { project }).spec.provider.workers?.[0].machine.image?.version, '1443.3.0');
    assert.equal(toShoot(runtimeFor('azure'), config, { project }).spec.provider.workers?.[0].machine.image?.version, IMAGE_VERSION);
  });
});

describe('metadata and common spec', () => {
  test('the Shoot is named after spec.shoot.name in garden-<project> and carries the Runtime ids, generation and accounts', () => {
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.licenceType = 'CUSTOMER'));
    const shoot = toShoot(rt, converterConfig(), { project });
    assert.equal(shoot.apiVersion, 'core.gardener.cloud/v1beta1');
    assert.equal(shoot.kind, 'Shoot');
    assert.equal(shoot.metadata.name, 'c-1234567');
    assert.equal(shoot.metadata.namespace, 'garden-kyma-dev');
    assert.deepEqual(shoot.metadata.labels, { account: 'ga-1', subaccount: 'sa-1' });
    assert.deepEqual(shoot.metadata.annotations, {
      'infrastructuremanager.kyma-project.io/runtime-id': 'runtime-1',
      'infrastructuremanager.kyma-project.io/runtime-generation': '4',
      'infrastructuremanager.kyma-project.io/licence-type': 'CUSTOMER',
    });
    assert.equal(shoot.spec.purpose, 'production');
    assert.equal(shoot.spec.region, 'eu-central-1');
    assert.equal(shoot.spec.secretBindingName, 'sb-aws');
    assert.deepEqual(shoot.spec.networking, { type: 'calico', nodes: '10.250.0.0/16', pods: '100.64.0.0/12', services: '100.104.0.0/13' });
  });

  test('runtimes of EU access platform regions are annotated for EU-only support', () => {
    const shoot = toShoot(runtimeFor('aws', (r) => (r.spec.shoot.platformRegion = 'cf-eu11')), converterConfig(), { project });
    assert.equal(shoot.metadata.annotations?.['support.gardener.cloud/eu-access-for-cluster-nodes'], 'true');
  });

  test('the Kubernetes version and OIDC settings come from the Runtime, else from the configuration', () => {
    const own = toShoot(
      runtimeFor('aws', (r) => {
        r.spec.shoot.kubernetes = { version: '1.31.4', kubeAPIServer: { oidcConfig: { clientID: 'rt-client', issuerURL: 'https://idp.example.com', signingAlgs: ['RS256'] } } };
      }),
      converterConfig(),
      { project },
    );
    assert.equal(own.spec.kubernetes?.version, '1.31.4');
    assert.deepEqual(own.spec.kubernetes?.kubeAPIServer?.oidcConfig, { clientID: 'rt-client', issuerURL: 'https://idp.example.com', signingAlgs: ['RS256'] });

    const defaults = toShoot(runtimeFor('aws'), converterConfig(), { project });
    assert.equal(defaults.spec.kubernetes?.version, '1.32.3');
    assert.equal(defaults.spec.kubernetes?.kubeAPIServer?.oidcConfig?.clientID, 'operator-client');
    assert.equal(defaults.spec.kubernetes?.kubeAPIServer?.oidcConfig?.issuerURL, 'https://operator.example.com');
  });

  test('control plane high availability and seed location are taken over from the Runtime', () => {
    const shoot = toShoot(
      runtimeFor('aws', (r) => {
        r.spec.shoot.controlPlane = { highAvailability: { failureTolerance: { type: 'zone' } } };
        r.spec.shoot.enforceSeedLocation = true;
      }),
      converterConfig(),
      { project },
    );
    assert.deepEqual(shoot.spec.controlPlane, { highAvailability: { failureTolerance: { type: 'zone' } } });
    assert.deepEqual(shoot.spec.seedSelector, { matchLabels: { 'seed.gardener.cloud/region': 'eu-central-1' } });
  });

  test('production clusters get the maintenance window of their region; others only the auto-update settings', () => {
    const prod = toShoot(runtimeFor('aws'), converterConfig(), { project });
    assert.deepEqual(prod.spec.maintenance, { autoUpdate: { kubernetesVersion: true, machineImageVersion: false }, timeWindow: { begin: '010000+0000', end: '050000+0000' } });
    const prodElsewhere = toShoot(runtimeFor('azure'), converterConfig(), { project });
    assert.deepEqual(prodElsewhere.spec.maintenance?.timeWindow, { begin: '220000+0000', end: '020000+0000' }, 'no rule matches westeurope: the default window');
    const dev = toShoot(runtimeFor('aws', (r) => (r.spec.shoot.purpose = 'development')), converterConfig(), { project });
    assert.deepEqual(dev.spec.maintenance, { autoUpdate: { kubernetesVersion: true, machineImageVersion: false } });
  });
});

describe('extensions and DNS', () => {
  test('a new Shoot gets the networking filter, certificates, DNS and OIDC extensions and an external DNS domain', () => {
    const shoot = toShoot(runtimeFor('aws'), converterConfig(), { project });
    const ext = shoot.spec.extensions ?? [];
    assert.deepEqual(ext.map((e) => e.type), ['shoot-networking-filter', 'shoot-cert-service', 'shoot-dns-service', 'shoot-oidc-service']);
    assert.deepEqual(ext[0], { type: 'shoot-networking-filter', disabled: true });
    assert.deepEqual(ext[1].providerConfig, { apiVersion: 'service.cert.extensions.gardener.cloud/v1alpha1', kind: 'CertConfig', shootIssuers: { enabled: true } });
    assert.deepEqual(ext[3], { type: 'shoot-oidc-service', disabled: false });
    assert.deepEqual(shoot.spec.dns, {
      domain: 'c-1234567.dev.kyma.example',
      providers: [{ domains: { include: ['c-1234567.dev.kyma.example'] }, primary: true, secretName: 'dns-secret', type: 'aws-route53' }],
    });
    assert.deepEqual(ext[2].providerConfig, {
      apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1',
      kind: 'DNSConfig',
      dnsProviderReplication: { enabled: true },
      syncProvidersFromShootSpecDNS: true,
      providers: [{ domains: { include: ['c-1234567.dev.kyma.example'] }, secretName: 'dns-secret', type: 'aws-route53' }],
    });
  });

  test('egress filtering enables the networking filter; ingress filtering adds blackholing', () => {
    const egressOnly = toShoot(runtimeFor('aws', (r) => (r.spec.security.networking.filter = { egress: { enabled: true }, ingress: { enabled: false } })), converterConfig(), { project });
    assert.deepEqual(egressOnly.spec.extensions?.[0], { type: 'shoot-networking-filter', disabled: false });
    const both = toShoot(runtimeFor('aws', (r) => (r.spec.security.networking.filter = { egress: { enabled: true }, ingress: { enabled: true } })), converterConfig(), { project });
    assert.deepEqual(both.spec.extensions?.[0], { type: 'shoot-networking-filter', disabled: false, providerConfig: { egressFilter: { blackholingEnabled: true } } });
  });

  test('runtimes created by the migrator get no OIDC extension', () => {
    const rt = runtimeFor('aws', (r) => (r.metadata.labels = { ...r.metadata.labels, 'operator.kyma-project.io/created-by-migrator': 'true' }));
    const types = (toShoot(rt, converterConfig(), { project }).spec.extensions ?? []).map((e) => e.type);
    assert.ok(!types.includes('shoot-oidc-service'));
  });

  test('without an external DNS provider the Shoot uses Gardener\'s internal DNS', () => {
    const shoot = toShoot(runtimeFor('gcp'), converterConfig((c) => delete c.dns), { project });
    assert.equal(shoot.spec.dns, undefined);
    const dnsExt = shoot.spec.extensions?.find((e) => e.type === 'shoot-dns-service');
    assert.deepEqual(dnsExt?.providerConfig, { apiVersion: 'service.dns.extensions.gardener.cloud/v1alpha1', kind: 'DNSConfig', dnsProviderReplication: { enabled: true } });
  });

  test('a configured audit log tenant adds the audit log extension, its credentials resource and the audit policy', () => {
    const config = converterConfig((c) => {
      c.auditLogging = {
        policyConfigMapName: 'audit-policy',
        tenants: { aws: { 'eu-central-1': { tenantID: 'tenant-1', serviceURL: 'https://auditlog.example.com:3001', secretName: 'auditlog-secret' } } },
      };
    });
    const shoot = toShoot(runtimeFor('aws'), config, { project });
    const audit = shoot.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service');
    assert.deepEqual(audit?.providerConfig, {
      apiVersion: 'service.auditlog.extensions.gardener.cloud/v1alpha1',
      kind: 'AuditlogConfig',
      type: 'standard',
      tenantID: 'tenant-1',
      serviceURL: 'https://auditlog.example.com:3001',
      secretReferenceName: 'auditlog-credentials',
    });
    assert.deepEqual(shoot.spec.resources, [{ name: 'auditlog-credentials', resourceRef: { apiVersion: 'v1', kind: 'Secret', name: 'auditlog-secret' } }]);
    assert.deepEqual((shoot.spec.kubernetes?.kubeAPIServer as Record<string, unknown>).auditConfig, { auditPolicy: { configMapRef: { name: 'audit-policy' } } });
    const elsewhere = toShoot(runtimeFor('azure'), config, { project });
    assert.equal(elsewhere.spec.extensions?.find((e) => e.type === 'shoot-auditlog-service'), undefined, 'no tenant for azure/westeurope');
  });
});

describe('conversion errors', () => {
  test('an unknown provider is a ConversionError naming spec.shoot.provider.type', () => {
    const rt = runtimeFor('aws', (r) => ((r.spec.shoot.provider as { type: string }).type = 'ibm'));
    conversionError(() => toShoot(rt, converterConfig(), { project }), 'spec.shoot.provider.type');
  });

  test('a zone outside the region is a ConversionError naming the worker zone', () => {
    const rt = runtimeFor('aws', (r) => {
      r.spec.shoot.provider.additionalWorkers = [{ name: 'extra', machine: { type: 'm6i.large' }, minimum: 1, maximum: 3, zones: ['eu-central-1a', 'eu-west-1b'] }];
    });
    const err = conversionError(() => toShoot(rt, converterConfig(), { project }), 'spec.shoot.provider.additionalWorkers[0].zones[1]');
    assert.match(err.message, /eu-west-1b is not a aws zone of region eu-central-1/);
  });

  test('more than eight AWS zones is a ConversionError', () => {
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.provider.workers[0].zones = [...'abcdefghi'].map((l) => `eu-central-1${l}`)));
    conversionError(() => toShoot(rt, converterConfig(), { project }), 'spec.shoot.provider.workers');
  });

  test('the Runtime is not modified by the conversion', () => {
    const rt = runtimeFor('aws');
    const before = structuredClone(rt);
    const shoot = toShoot(rt, converterConfig(), { project });
    shoot.spec.provider.workers?.[0].zones?.push('eu-central-1d');
    assert.deepEqual(rt, before);
  });
});

describe('kube-apiserver access control', () => {
  test('allowed CIDRs of the Runtime become the ACL extension; a patch without them disables it', () => {
    const rt = runtimeFor('aws', (r) => (r.spec.shoot.kubernetes = { kubeAPIServer: { acl: { allowedCIDRs: ['203.0.113.0/24'] } } }));
    const shoot = toShoot(rt, converterConfig(), { project });
    const acl = shoot.spec.extensions?.find((e) => e.type === 'acl');
    assert.deepEqual(acl, { type: 'acl', disabled: false, providerConfig: { rule: { action: 'ALLOW', type: 'remote_ip', cidrs: ['203.0.113.0/24'] } } });
    const patched = toShoot(runtimeFor('aws'), converterConfig(), { project, existing: shoot });
    assert.equal(patched.spec.extensions?.find((e) => e.type === 'acl')?.disabled, true);
    assert.equal(toShoot(runtimeFor('aws'), converterConfig(), { project }).spec.extensions?.find((e) => e.type === 'acl'), undefined);
  });
});
