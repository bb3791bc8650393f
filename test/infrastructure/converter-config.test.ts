// The converter configuration: the shipped default loads, bad settings fail at start naming the field.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runtimeProviderTypes } from '../../src/api/infrastructuremanager/index.js';
import { ConverterConfigError, defaultMachineImage, loadConverterConfig, toShoot } from '../../src/infrastructure/converter/index.js';
import { configObject, runtimeFor } from './converter-fixtures.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function rejects(mutate: (c: Record<string, unknown>) => void, field: string): ConverterConfigError {
  const c = configObject();
  mutate(c);
  try {
    loadConverterConfig(c);
  } catch (err) {
    assert.ok(err instanceof ConverterConfigError, `expected ConverterConfigError, got ${String(err)}`);
    assert.equal(err.field, field);
    assert.ok(err.message.includes(field), 'the message names the field');
    return err;
  }
  assert.fail(`expected the config to be rejected at ${field}`);
}

describe('converter config', () => {
  test('the shipped config/converter-config.json loads and has machine image defaults for all five providers', () => {
    const config = loadConverterConfig(readFileSync(join(root, 'config', 'converter-config.json'), 'utf8'));
    for (const provider of runtimeProviderTypes) {
      const image = defaultMachineImage(config, provider);
      assert.ok(image.name !== '' && image.version !== '', provider);
      assert.doesNotThrow(() => toShoot(runtimeFor(provider), config, { project: config.gardener.projectName }), provider);
    }
    assert.equal(config.provider.aws.enableIMDSv2, true);
    assert.ok(config.maintenanceWindow.policy, 'a maintenance policy is configured');
  });

  test('upstream\'s layout with the settings under "converter" is accepted too', () => {
    const config = loadConverterConfig(JSON.stringify({ converter: configObject() }));
    assert.equal(config.kubernetes.defaultVersion, '1.32.3');
  });

  test('missing or malformed settings fail with a ConverterConfigError naming the field', () => {
    rejects((c) => delete c.kubernetes, 'kubernetes');
    rejects((c) => ((c.kubernetes as Record<string, unknown>).defaultVersion = 'latest'), 'kubernetes.defaultVersion');
    rejects((c) => ((c.kubernetes as Record<string, unknown>).enableKubernetesVersionAutoUpdate = 'yes'), 'kubernetes.enableKubernetesVersionAutoUpdate');
    rejects((c) => (((c.kubernetes as Record<string, unknown>).defaultOperatorOidc as Record<string, unknown>).issuerURL = 'http://insecure'), 'kubernetes.defaultOperatorOidc.issuerURL');
    rejects((c) => (((c.kubernetes as Record<string, unknown>).defaultOperatorOidc as Record<string, unknown>).signingAlgs = ['HS256']), 'kubernetes.defaultOperatorOidc.signingAlgs[0]');
    rejects((c) => (c.machineImage = { defaultName: 'gardenlinux' }), 'machineImage.defaultVersion');
    rejects((c) => (c.machineImage = { defaultName: 'gardenlinux', defaultVersion: '1', providers: { ibm: { name: 'x', version: '1' } } }), 'machineImage.providers.ibm');
    rejects((c) => (c.gardener = {}), 'gardener.projectName');
    rejects((c) => (c.dns = { secretName: 'dns-secret', domainPrefix: 'example.com' }), 'dns.providerType');
    rejects((c) => (c.provider = { azure: { natGatewayIdleConnectionTimeoutMinutes: 1 } }), 'provider.azure.natGatewayIdleConnectionTimeoutMinutes');
    rejects((c) => (c.tolerations = { 'eu-central-1': [{ value: 'x' }] }), 'tolerations.eu-central-1[0].key');
  });

  test('maintenance windows must be in Gardener\'s HHMMSS+ZONE format and regions valid patterns', () => {
    rejects((c) => (c.maintenanceWindow = { policy: { rules: [], default: { begin: '22:00', end: '020000+0000' } } }), 'maintenanceWindow.policy.default.begin');
    rejects((c) => (c.maintenanceWindow = { policy: { rules: [{ match: { region: '(' }, windows: [{ begin: '010000+0000', end: '020000+0000' }] }] } }), 'maintenanceWindow.policy.rules[0].match.region');
    rejects((c) => (c.maintenanceWindow = { policy: { rules: [{ match: { region: 'eu' }, windows: [] }] } }), 'maintenanceWindow.policy.rules[0].windows');
  });

  test('a maintenance policy file is read relative to the base directory; a missing file names windowMapPath', () => {
    const dir = mkdtempSync(join(tmpdir(), 'converter-config-'));
    try {
      writeFileSync(join(dir, 'windows.json'), JSON.stringify({ rules: [], default: { begin: '030000+0000', end: '040000+0000' } }));
      const c = configObject();
      c.maintenanceWindow = { windowMapPath: 'windows.json' };
      const config = loadConverterConfig(c, { baseDir: dir });
      assert.deepEqual(config.maintenanceWindow.policy?.default, { begin: '030000+0000', end: '040000+0000' });
      const shoot = toShoot(runtimeFor('gcp'), config, { project: 'p' });
      assert.deepEqual(shoot.spec.maintenance?.timeWindow, { begin: '030000+0000', end: '040000+0000' });
      c.maintenanceWindow = { windowMapPath: 'missing.json' };
      assert.throws(() => loadConverterConfig(c, { baseDir: dir }), { name: 'ConverterConfigError', field: 'maintenanceWindow.windowMapPath' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('text that is not JSON is rejected as a whole', () => {
    assert.throws(() => loadConverterConfig('{ kubernetes: '), { name: 'ConverterConfigError', field: '$' });
  });
});
