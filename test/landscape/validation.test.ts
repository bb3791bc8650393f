// Gardener's Shoot admission rules as the simulator applies them, checked without a server: zones
// per provider naming scheme or per listed region, network overlaps (IPv4 and IPv6, defaults
// included), immutable fields, and the deletion confirmation.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ShootObject } from '../../src/api/gardener/index.js';
import { cidrsOverlap, defaultSimulatorOptions, deletionRefusal, parseCidr, shootClusterName, validateShoot } from '../../src/landscape/index.js';
import { testShoot } from '../support/landscape.js';

const settings = defaultSimulatorOptions;
const messages = (s: ShootObject, old?: ShootObject, opts = settings) => validateShoot(s, old, opts).map((e) => `${e.field}: ${e.message}`);

describe('Shoot admission rules', () => {
  it('accepts the zones of each provider naming scheme and rejects others, naming the zone index', () => {
    const zoned = (provider: string, region: string, zones: string[]) =>
      testShoot('z', 'garden-p', (s) => {
        s.spec.provider.type = provider;
        s.spec.region = region;
        s.spec.provider.workers![0].zones = zones;
      });
    assert.deepEqual(messages(zoned('gcp', 'europe-west3', ['europe-west3-a', 'europe-west3-c'])), []);
    assert.deepEqual(messages(zoned('azure', 'westeurope', ['1', '2', '3'])), []);
    assert.deepEqual(messages(zoned('openstack', 'eu-de-1', ['eu-de-1a'])), []);
    assert.match(messages(zoned('azure', 'westeurope', ['1', '4'])).join(), /spec\.provider\.workers\[0\]\.zones\[1\]: Unsupported value: "4"/);
    assert.match(messages(zoned('gcp', 'europe-west3', ['europe-west3a'])).join(), /zones\[0\]: Unsupported value: "europe-west3a"/);
  });

  it('a region listed in the settings accepts exactly its zones', () => {
    const opts = { ...settings, regions: { aws: { 'eu-central-1': ['eu-central-1a'] } } };
    assert.deepEqual(messages(testShoot('z', 'garden-p', (s) => (s.spec.provider.workers![0].zones = ['eu-central-1a'])), undefined, opts), []);
    assert.match(messages(testShoot('z', 'garden-p'), undefined, opts).join(), /zones\[1\]: Unsupported value: "eu-central-1b": supported values: "eu-central-1a"/);
  });

  it('networks must not overlap, with the default pod and service networks when unset', () => {
    const nets = (networking: NonNullable<ShootObject['spec']['networking']>) => testShoot('n', 'garden-p', (s) => (s.spec.networking = networking));
    assert.deepEqual(messages(nets({ nodes: '10.250.0.0/16' })), []);
    assert.match(messages(nets({ nodes: '100.96.0.0/16' })).join(), /spec\.networking\.nodes: Invalid value: "100\.96\.0\.0\/16": must not overlap with spec\.networking\.pods \("100\.96\.0\.0\/11"\)/);
    assert.match(messages(nets({ pods: '10.0.0.0/8', services: '10.96.0.0/12', nodes: '192.168.0.0/16' })).join(), /spec\.networking\.services: .*must not overlap with spec\.networking\.pods/);
    assert.match(messages(nets({ nodes: '10.0.0.0/33' })).join(), /spec\.networking\.nodes: Invalid value: "10\.0\.0\.0\/33": must be a valid CIDR/);
  });

  it('parses and compares IPv4 and IPv6 networks', () => {
    const overlap = (a: string, b: string) => cidrsOverlap(parseCidr(a)!, parseCidr(b)!);
    assert.equal(overlap('10.0.0.0/8', '10.20.0.0/16'), true);
    assert.equal(overlap('10.0.0.0/16', '10.1.0.0/16'), false);
    assert.equal(overlap('2001:db8::/32', '2001:db8:1::/48'), true);
    assert.equal(overlap('2001:db8::/32', '2001:db9::/32'), false);
    assert.equal(overlap('10.0.0.0/8', '::/0'), false);
    assert.equal(parseCidr('1.2.3/8'), undefined);
    assert.equal(parseCidr('2001:db8:::1/64'), undefined);
  });

  it('a worker maximum below its minimum, an unknown provider and changed immutable fields are named', () => {
    const bad = testShoot('w', 'garden-p', (s) => {
      s.spec.provider.type = 'vsphere';
      Object.assign(s.spec.provider.workers![0], { minimum: 2, maximum: 1 });
    });
    const out = messages(bad).join('\n');
    assert.match(out, /spec\.provider\.type: Unsupported value: "vsphere"/);
    assert.match(out, /spec\.provider\.workers\[0\]\.maximum: Forbidden: maximum value must not be less than minimum value/);
    const old = testShoot('w', 'garden-p');
    const moved = testShoot('w', 'garden-p', (s) => {
      s.spec.region = 'eu-west-1';
      s.spec.provider.workers![0].zones = ['eu-west-1a'];
      s.spec.networking = { ...s.spec.networking, services: '100.112.0.0/13' };
    });
    const changed = messages(moved, old).join('\n');
    assert.match(changed, /spec\.region: Invalid value: "eu-west-1": field is immutable/);
    assert.match(changed, /spec\.networking\.services: Invalid value: "100\.112\.0\.0\/13": field is immutable/);
  });

  it('deletion needs confirmation.gardener.cloud/deletion set to "true"', () => {
    assert.match(deletionRefusal({ metadata: {} }) ?? '', /must have a "confirmation\.gardener\.cloud\/deletion" annotation to delete/);
    assert.ok(deletionRefusal({ metadata: { annotations: { 'confirmation.gardener.cloud/deletion': 'false' } } }));
    assert.equal(deletionRefusal({ metadata: { annotations: { 'confirmation.gardener.cloud/deletion': 'true' } } }), undefined);
  });
});

describe('shoot cluster names', () => {
  it('are shoot--<project>--<name>, and stay valid logical cluster names when long', () => {
    assert.equal(shootClusterName('garden-kyma-dev', 'c-12345'), 'shoot--kyma-dev--c-12345');
    const long = shootClusterName('garden-a-rather-long-project', 'a-very-long-shoot-name-for-a-runtime-abcdef');
    assert.ok(long.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(long), long);
    assert.notEqual(long, shootClusterName('garden-a-rather-long-project', 'a-very-long-shoot-name-for-a-runtime-abcdeg'));
  });
});
