// Runtimes per provider and a converter configuration for the converter tests.
import type { RuntimeObject, RuntimeProviderType } from '../../src/api/infrastructuremanager/index.js';
import { loadConverterConfig, type ConverterConfig } from '../../src/infrastructure/converter/index.js';

export const IMAGE_VERSION = '1592.9.0';

export const providerFixtures: Record<RuntimeProviderType, { region: string; zones: string[]; machine: string }> = {
  aws: { region: 'eu-central-1', zones: ['eu-central-1a', 'eu-central-1b', 'eu-central-1c'], machine: 'm6i.large' },
  azure: { region: 'westeurope', zones: ['1', '2', '3'], machine: 'Standard_D4s_v5' },
  gcp: { region: 'europe-west3', zones: ['europe-west3-a', 'europe-west3-b', 'europe-west3-c'], machine: 'n2-standard-4' },
  openstack: { region: 'eu-de-1', zones: ['eu-de-1a', 'eu-de-1b', 'eu-de-1d'], machine: 'g_c4_m16' },
  alicloud: { region: 'eu-central-1', zones: ['eu-central-1a', 'eu-central-1b'], machine: 'ecs.g7.xlarge' },
};

export function configObject(): Record<string, unknown> {
  return {
    kubernetes: {
      defaultVersion: '1.32.3',
      enableKubernetesVersionAutoUpdate: true,
      enableMachineImageVersionAutoUpdate: false,
      defaultOperatorOidc: {
        clientID: 'operator-client',
        groupsClaim: 'groups',
        issuerURL: 'https://operator.example.com',
        signingAlgs: ['RS256'],
        usernameClaim: 'sub',
        usernamePrefix: '-',
      },
    },
    dns: { secretName: 'dns-secret', domainPrefix: 'dev.kyma.example', providerType: 'aws-route53' },
    provider: { aws: { enableIMDSv2: true } },
    machineImage: { defaultName: 'gardenlinux', defaultVersion: IMAGE_VERSION },
    gardener: { projectName: 'kyma-dev' },
    maintenanceWindow: {
      policy: {
        rules: [{ match: { region: '^eu-' }, windows: [{ begin: '010000+0000', end: '050000+0000' }] }],
        default: { begin: '220000+0000', end: '020000+0000' },
      },
    },
  };
}

export function converterConfig(mutate: (c: Record<string, unknown>) => void = () => {}): ConverterConfig {
  const c = configObject();
  mutate(c);
  return loadConverterConfig(c);
}

/** A Runtime on `provider` with one worker pool over the fixture's zones. */
export function runtimeFor(provider: RuntimeProviderType, mutate: (r: RuntimeObject) => void = () => {}): RuntimeObject {
  const f = providerFixtures[provider];
  const r: RuntimeObject = {
    apiVersion: 'infrastructuremanager.kyma-project.io/v1',
    kind: 'Runtime',
    metadata: {
      name: 'rt-1',
      namespace: 'kcp-system',
      generation: 4,
      labels: {
        'kyma-project.io/instance-id': 'instance-1',
        'kyma-project.io/runtime-id': 'runtime-1',
        'kyma-project.io/region': f.region,
        'operator.kyma-project.io/kyma-name': 'runtime-1',
        'kyma-project.io/broker-plan-id': 'plan-1',
        'kyma-project.io/broker-plan-name': provider,
        'kyma-project.io/global-account-id': 'ga-1',
        'kyma-project.io/subaccount-id': 'sa-1',
      },
    },
    spec: {
      shoot: {
        name: 'c-1234567',
        purpose: 'production',
        platformRegion: 'cf-eu10',
        region: f.region,
        secretBindingName: `sb-${provider}`,
        provider: {
          type: provider,
          workers: [{ name: 'cpu-worker-0', machine: { type: f.machine }, minimum: 3, maximum: 20, maxSurge: 3, maxUnavailable: 0, zones: [...f.zones] }],
        },
        networking: { type: 'calico', nodes: '10.250.0.0/16', pods: '100.64.0.0/12', services: '100.104.0.0/13' },
      },
      security: { administrators: ['admin@example.com'], networking: { filter: { egress: { enabled: false }, ingress: { enabled: false } } } },
    },
  };
  mutate(r);
  return r;
}
