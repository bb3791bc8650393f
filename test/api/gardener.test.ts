// Gardener as the control plane consumes it: the Shoot CRD of the embedded garden cluster accepts real
// Shoot manifests (unknown fields kept) and rejects what Gardener rejects; error codes and their
// retryability; the AdminKubeconfigRequest of the adminkubeconfig subresource.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { crdOf } from '../../src/api/crd.js';
import {
  adminKubeconfigPath,
  adminKubeconfigRequest,
  type AdminKubeconfigRequest,
  DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS,
  ErrorCleanupClusterResources,
  ErrorConfigurationProblem,
  errorCodes,
  ErrorInfraQuotaExceeded,
  ErrorInfraRateLimitsExceeded,
  ErrorInfraResourcesDepleted,
  ErrorInfraUnauthorized,
  ErrorRetryableConfigurationProblem,
  ErrorRetryableInfraDependencies,
  gardenerKinds,
  hasErrorCode,
  hasNonRetryableErrorCode,
  isErrorCode,
  isRetryable,
  isRetryableErrorCode,
  newAdminKubeconfigRequest,
  Shoot,
  type ShootObject,
  shootPurposes,
  validateAdminKubeconfigRequest,
} from '../../src/api/gardener/index.js';
import { type AnyKind, type ApiTestEnv, startWithKinds } from '../support/api.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const shootSample = yaml.load(readFileSync(join(root, 'config', 'samples', 'core.gardener.cloud_v1beta1_shoot.yaml'), 'utf8')) as ShootObject;

interface Cause { field?: string; message?: string }
function causes(body: Record<string, unknown>): Cause[] {
  return (body.details as { causes?: Cause[] } | undefined)?.causes ?? [];
}

let env: ApiTestEnv;
let counter = 0;

function shoot(mutate: (s: ShootObject) => void = () => {}): ShootObject {
  const s = structuredClone(shootSample);
  s.metadata.name = `s-${++counter}`;
  mutate(s);
  return s;
}

async function rejected(obj: ShootObject, field: string, text?: RegExp): Promise<void> {
  const r = await env.create(obj);
  assert.equal(r.status, 422, `expected 422 for ${field}, got ${r.status}: ${JSON.stringify(r.body)}`);
  const message = String(r.body.message);
  assert.ok(causes(r.body).some((c) => c.field === field) || message.includes(field), `no cause names ${field}: ${message}`);
  if (text) assert.match(message, text);
}

const shootsPath = '/apis/core.gardener.cloud/v1beta1/namespaces/garden-test/shoots';

before(async () => {
  env = await startWithKinds(gardenerKinds as unknown as AnyKind[]);
});
after(async () => {
  await env.stop();
});

describe('Shoot CRD', () => {
  test('names, scope and status subresource', () => {
    const crd = crdOf(Shoot as unknown as AnyKind) as { metadata: { name: string }; spec: { scope: string; names: { plural: string; kind: string }; versions: { name: string; subresources: unknown }[] } };
    assert.equal(crd.metadata.name, 'shoots.core.gardener.cloud');
    assert.equal(crd.spec.scope, 'Namespaced');
    assert.equal(crd.spec.names.plural, 'shoots');
    assert.equal(crd.spec.versions[0].name, 'v1beta1');
    assert.deepEqual(crd.spec.versions[0].subresources, { status: {} });
  });

  test('the sample is accepted and fields the schema does not list are kept', async () => {
    const s = shoot();
    const res = await env.create(s);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const got = await env.client.request('GET', `${shootsPath}/${s.metadata.name}`);
    const body = JSON.parse(got.text) as ShootObject & { spec: { kubernetes: Record<string, unknown>; provider: { infrastructureConfig: Record<string, unknown>; workers: Record<string, unknown>[] } } };
    const k8s = body.spec.kubernetes;
    assert.equal(k8s.enableStaticTokenKubeconfig, false);
    assert.deepEqual((k8s.kubeAPIServer as Record<string, unknown>).auditConfig, { auditPolicy: { configMapRef: { name: 'audit-policy' } } });
    assert.deepEqual(body.spec.provider.infrastructureConfig, shootSample.spec.provider.infrastructureConfig);
    assert.deepEqual(body.spec.provider.workers[0].cri, { name: 'containerd' });
    assert.deepEqual(body.spec.extensions, shootSample.spec.extensions);
  });

  test('a minimal Shoot with fields this schema has never heard of applies', async () => {
    const res = await env.create({
      apiVersion: 'core.gardener.cloud/v1beta1',
      kind: 'Shoot',
      metadata: { name: 'minimal', namespace: 'garden-test' },
      spec: { cloudProfile: { kind: 'CloudProfile', name: 'local' }, region: 'local', provider: { type: 'local', workersSettings: { sshAccess: { enabled: false } } }, someFutureField: { a: 1 } },
    } as unknown as ShootObject);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual((res.body.spec as Record<string, unknown>).someFutureField, { a: 1 });
  });

  test('status with last operation, last errors and Gardener conditions', async () => {
    const s = shoot();
    const created = await env.create(s);
    assert.equal(created.status, 201);
    const obj = created.body as unknown as ShootObject;
    obj.status = {
      hibernated: false,
      technicalID: `shoot--test--${s.metadata.name}`,
      uid: '7c7a4c2c-1e49-4d2b-b2f8-6c3f1d0e9a7b',
      lastOperation: { type: 'Create', state: 'Error', progress: 35, description: 'Waiting for infrastructure', lastUpdateTime: '2026-01-01T00:00:00Z' },
      lastErrors: [{ description: 'quota exceeded', taskID: 'Waiting until infrastructure is ready', codes: [ErrorInfraQuotaExceeded], lastUpdateTime: '2026-01-01T00:00:00Z' }],
      conditions: [{ type: 'APIServerAvailable', status: 'Progressing', lastTransitionTime: '2026-01-01T00:00:00Z', lastUpdateTime: '2026-01-01T00:00:00Z', reason: 'Pending', message: '', codes: [] }],
      constraints: [{ type: 'HibernationPossible', status: 'True' }],
    };
    const path = `${shootsPath}/${s.metadata.name}/status`;
    const ok = await env.client.request('PUT', path, { body: JSON.stringify(obj) });
    assert.equal(ok.status, 200, ok.text);
    const back = JSON.parse(ok.text) as ShootObject;
    assert.equal(back.status?.lastOperation?.progress, 35);
    assert.deepEqual(back.status?.lastErrors?.[0].codes, [ErrorInfraQuotaExceeded]);

    for (const [mutate, field] of [
      [(o: ShootObject) => { o.status!.lastOperation!.progress = 101; }, 'status.lastOperation.progress'],
      [(o: ShootObject) => { (o.status!.lastOperation as { state: string }).state = 'Running'; }, 'status.lastOperation.state'],
      [(o: ShootObject) => { (o.status!.lastOperation as { type: string }).type = 'Hibernate'; }, 'status.lastOperation.type'],
      [(o: ShootObject) => { (o.status!.conditions![0] as { status: string }).status = 'Maybe'; }, 'status.conditions[0].status'],
    ] as const) {
      const bad = structuredClone(back);
      mutate(bad);
      const res = await env.client.request('PUT', path, { body: JSON.stringify(bad) });
      assert.equal(res.status, 422, `${field}: ${res.text}`);
      assert.match(res.text, new RegExp(field.replace(/[.[\]]/g, '\\$&')));
    }
  });
});

describe('Shoot rejected as Gardener rejects it', () => {
  test('a worker maximum below its minimum', () =>
    rejected(shoot((s) => { s.spec.provider.workers![0].minimum = 4; s.spec.provider.workers![0].maximum = 3; }), 'spec.provider.workers[0].maximum', /maximum must not be less than minimum/));

  test('a purpose Gardener does not know', () => rejected(shoot((s) => { (s.spec as { purpose: string }).purpose = 'fun'; }), 'spec.purpose', /supported values/));

  test('an invalid Kubernetes version', () => rejected(shoot((s) => { s.spec.kubernetes!.version = 'v1.31.0'; }), 'spec.kubernetes.version'));

  test('a malformed pod CIDR', () => rejected(shoot((s) => { s.spec.networking!.pods = '100.64.0.0/40'; }), 'spec.networking.pods'));

  test('a malformed service CIDR', () => rejected(shoot((s) => { s.spec.networking!.services = '100.104.0/13'; }), 'spec.networking.services'));

  test('a missing region', () => rejected(shoot((s) => { delete (s.spec as Partial<typeof s.spec>).region; }), 'spec.region', /Required value/));

  test('a missing provider type', () => rejected(shoot((s) => { delete (s.spec.provider as Partial<typeof s.spec.provider>).type; }), 'spec.provider.type', /Required value/));

  test('neither cloudProfileName nor cloudProfile', () => rejected(shoot((s) => { delete s.spec.cloudProfileName; }), 'spec.cloudProfile', /either cloudProfileName or cloudProfile/));

  test('secretBindingName together with credentialsBindingName', () =>
    rejected(shoot((s) => { s.spec.credentialsBindingName = 'cb'; }), 'spec.credentialsBindingName', /mutually exclusive/));

  test('a shoot name with a double dash', () => rejected(shoot((s) => { s.metadata.name = `bad--name-${++counter}`; }), 'metadata.name', /must not contain "--"/));

  test('a maintenance window bound in the wrong format', () =>
    rejected(shoot((s) => { s.spec.maintenance!.timeWindow!.begin = '3:00'; }), 'spec.maintenance.timeWindow.begin'));

  test('two extensions of the same type', () =>
    rejected(shoot((s) => { s.spec.extensions!.push({ type: 'shoot-cert-service' }); }), 'spec.extensions[3]', /Duplicate value/));

  test('a worker volume without size', () =>
    rejected(shoot((s) => { s.spec.provider.workers![0].volume = { type: 'gp3' } as unknown as { size: string }; }), 'spec.provider.workers[0].volume.size'));

  test('a machine image without name', () =>
    rejected(shoot((s) => { s.spec.provider.workers![0].machine.image = { version: '1.0' } as unknown as { name: string }; }), 'spec.provider.workers[0].machine.image.name'));

  test('an unknown machine architecture', () =>
    rejected(shoot((s) => { (s.spec.provider.workers![0].machine as { architecture: string }).architecture = 'riscv'; }), 'spec.provider.workers[0].machine.architecture'));
});

describe('error codes', () => {
  test('the full upstream list', () => {
    assert.deepEqual(errorCodes, [
      'ERR_INFRA_UNAUTHENTICATED',
      'ERR_INFRA_UNAUTHORIZED',
      'ERR_INFRA_QUOTA_EXCEEDED',
      'ERR_INFRA_RATE_LIMITS_EXCEEDED',
      'ERR_INFRA_DEPENDENCIES',
      'ERR_RETRYABLE_INFRA_DEPENDENCIES',
      'ERR_INFRA_RESOURCES_DEPLETED',
      'ERR_CLEANUP_CLUSTER_RESOURCES',
      'ERR_CONFIGURATION_PROBLEM',
      'ERR_RETRYABLE_CONFIGURATION_PROBLEM',
      'ERR_PROBLEMATIC_WEBHOOK',
    ]);
    assert.ok(isErrorCode('ERR_PROBLEMATIC_WEBHOOK'));
    assert.ok(!isErrorCode('ERR_SOMETHING'));
  });

  test('retryability as Gardener classifies it', () => {
    for (const c of [ErrorInfraUnauthorized, ErrorInfraQuotaExceeded, ErrorInfraRateLimitsExceeded, ErrorConfigurationProblem]) assert.ok(!isRetryableErrorCode(c), c);
    for (const c of [ErrorRetryableInfraDependencies, ErrorInfraResourcesDepleted, ErrorCleanupClusterResources, ErrorRetryableConfigurationProblem, 'ERR_UNKNOWN']) {
      assert.ok(isRetryableErrorCode(c), c);
    }
  });

  test('last errors: any non-retryable code makes the whole set non-retryable; no errors is not retryable', () => {
    assert.ok(isRetryable([{ codes: [ErrorInfraResourcesDepleted] }, { codes: [] }]));
    assert.ok(!isRetryable([{ codes: [ErrorInfraResourcesDepleted] }, { codes: [ErrorInfraUnauthorized] }]));
    assert.ok(hasNonRetryableErrorCode([{ codes: [ErrorConfigurationProblem] }]));
    assert.ok(!hasNonRetryableErrorCode([{}]));
    assert.ok(!isRetryable([]));
    assert.ok(hasErrorCode([{ codes: [ErrorInfraQuotaExceeded] }], ErrorInfraQuotaExceeded));
    assert.ok(!hasErrorCode([{ codes: [ErrorInfraQuotaExceeded] }], ErrorInfraUnauthorized));
  });

  test('purposes', () => {
    assert.deepEqual(shootPurposes, ['evaluation', 'testing', 'development', 'production', 'infrastructure']);
  });
});

describe('AdminKubeconfigRequest', () => {
  test('a new request asks for one hour by default', () => {
    const r: AdminKubeconfigRequest = newAdminKubeconfigRequest();
    assert.deepEqual(r, { apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'AdminKubeconfigRequest', spec: { expirationSeconds: DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS } });
    assert.equal(DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS, 3600);
    assert.deepEqual(validateAdminKubeconfigRequest(r), []);
  });

  test('the subresource path', () => {
    assert.equal(adminKubeconfigPath('garden-kyma', 'c-7f3a2b1'), '/apis/core.gardener.cloud/v1beta1/namespaces/garden-kyma/shoots/c-7f3a2b1/adminkubeconfig');
  });

  test('the schema: spec.expirationSeconds, status.kubeconfig in base64, status.expirationTimestamp', () => {
    const o = adminKubeconfigRequest.openapi as { properties: { spec: { properties: Record<string, Record<string, unknown>> }; status: { properties: Record<string, Record<string, unknown>> } } };
    assert.equal(o.properties.spec.properties.expirationSeconds.type, 'integer');
    assert.equal(o.properties.status.properties.kubeconfig.format, 'byte');
    assert.equal(o.properties.status.properties.expirationTimestamp.format, 'date-time');
    const answer: AdminKubeconfigRequest = { ...newAdminKubeconfigRequest(600), status: { kubeconfig: Buffer.from('apiVersion: v1').toString('base64'), expirationTimestamp: '2026-01-01T01:00:00Z' } };
    assert.equal(Buffer.from(answer.status!.kubeconfig!, 'base64').toString(), 'apiVersion: v1');
  });

  test('bad requests name the field', () => {
    assert.deepEqual(validateAdminKubeconfigRequest({ spec: { expirationSeconds: 599 } }), [{ field: 'spec.expirationSeconds', message: 'may not specify a duration less than 10 minutes' }]);
    assert.deepEqual(validateAdminKubeconfigRequest({ spec: { expirationSeconds: 2 ** 32 + 1 } }).map((i) => i.field), ['spec.expirationSeconds']);
    assert.deepEqual(validateAdminKubeconfigRequest({ spec: { expirationSeconds: '3600' } }).map((i) => i.field), ['spec.expirationSeconds']);
    assert.deepEqual(validateAdminKubeconfigRequest({ kind: 'TokenRequest', spec: {} }).map((i) => i.field), ['kind']);
    assert.deepEqual(validateAdminKubeconfigRequest({ apiVersion: 'authentication.gardener.cloud/v1alpha1', kind: 'AdminKubeconfigRequest' }), []);
  });
});
