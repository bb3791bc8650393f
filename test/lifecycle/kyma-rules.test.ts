// The rules of the Kyma controller without a cluster: state precedence, version order (no
// downgrades), channel resolution and upstream's Manifest names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KymaObject, ModuleReleaseMetaObject, ModuleTemplateObject, ModuleStatus } from '../../src/api/operator/index.js';
import type { Condition } from '../../src/api/schema.js';
import { resolveModule, ResolveError, type CatalogView } from '../../src/lifecycle/catalog/resolve.js';
import { compareVersions } from '../../src/lifecycle/catalog/semver.js';
import { adler32, manifestName } from '../../src/lifecycle/kyma/manifest-builder.js';
import { determineState, modulesCondition } from '../../src/lifecycle/kyma/status.js';

const mod = (name: string, state: ModuleStatus['state']): ModuleStatus => ({ name, state });
const cond = (type: string, status: Condition['status']): Condition => ({ type, status, reason: 'Ready', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });

describe('Kyma rules', () => {
  it('state precedence as upstream: Error, then Warning, then Processing modules, then conditions that do not hold keep the Kyma Processing', () => {
    assert.equal(determineState([mod('a', 'Warning'), mod('b', 'Processing'), mod('c', 'Error')], []), 'Error');
    assert.equal(determineState([mod('a', 'Warning'), mod('b', 'Processing')], [cond('Modules', 'False')]), 'Warning');
    assert.equal(determineState([mod('a', 'Processing'), mod('b', 'Ready')], [cond('Modules', 'False')]), 'Processing');
    // A Deleting module counts through the Modules condition, which does not hold then.
    assert.equal(determineState([mod('a', 'Ready'), mod('b', 'Deleting')], [cond('Modules', modulesCondition([mod('a', 'Ready'), mod('b', 'Deleting')]).status)]), 'Processing');
    assert.equal(determineState([mod('a', 'Warning'), mod('b', 'Deleting')], [cond('Modules', 'False')]), 'Warning');
    assert.equal(determineState([mod('a', 'Ready')], [cond('Modules', 'True'), cond('CRDsSync', 'False')]), 'Processing');
    assert.equal(determineState([mod('a', 'Ready')], [cond('Modules', 'True'), cond('ModuleCatalog', 'Unknown')]), 'Processing');
    assert.equal(determineState([], [cond('Modules', 'True'), cond('ModuleCatalog', 'True'), cond('CRDsSync', 'True')]), 'Ready');
  });

  it('the Modules condition holds only when every module is Ready or Unmanaged (a Warning module is not ready)', () => {
    assert.deepEqual(modulesCondition([mod('a', 'Ready'), mod('b', 'Unmanaged')]), { status: 'True', message: 'all modules are in ready state' });
    assert.deepEqual(modulesCondition([mod('a', 'Ready'), mod('b', 'Warning')]), { status: 'False', message: 'not all modules are in ready state' });
    assert.equal(modulesCondition([mod('a', 'Ready'), mod('b', '')]).status, 'False');
    assert.equal(modulesCondition([]).status, 'True');
  });

  it('versions order as semver: pre-releases below their release, numbers numerically', () => {
    assert.equal(compareVersions('1.10.0', '1.9.0'), 1);
    assert.equal(compareVersions('1.0.0-rc1', '1.0.0'), -1);
    assert.equal(compareVersions('1.0.0-rc.10', '1.0.0-rc.9'), 1);
    assert.equal(compareVersions('2.0.0', '2.0.0'), 0);
    assert.equal(compareVersions('not-a-version', '1.0.0'), 0);
  });

  it('Manifest names carry the adler32 of the fqdn, as upstream names them', () => {
    assert.equal(adler32('Wikipedia'), 0x11e60398);
    assert.equal(manifestName('kyma-1', 'keda', 'kyma-project.io/module/keda'), `kyma-1-keda-${adler32('kyma-project.io/module/keda')}`);
  });

  describe('channel resolution', () => {
    const kyma = (labels: Record<string, string> = {}, channel = 'regular'): KymaObject => ({ apiVersion: 'v', kind: 'Kyma', metadata: { name: 'k', labels }, spec: { channel } });
    const meta = (channels: Record<string, string>, beta = false): ModuleReleaseMetaObject => ({
      apiVersion: 'v',
      kind: 'ModuleReleaseMeta',
      metadata: { name: 'keda' },
      spec: { moduleName: 'keda', channels: Object.entries(channels).map(([channel, version]) => ({ channel, version })), beta },
    });
    const templates = new Map<string, ModuleTemplateObject>(
      ['1.0.0', '1.1.0', '2.0.0'].map((v) => [`keda-${v}`, { apiVersion: 'v', kind: 'ModuleTemplate', metadata: { name: `keda-${v}` }, spec: { moduleName: 'keda', version: v } }]),
    );
    const view = (m: ModuleReleaseMetaObject | undefined): CatalogView => ({ releaseMeta: () => m, template: (n) => templates.get(n) });

    it('takes the module channel, else the Kyma channel, and a pinned version directly', () => {
      const v = view(meta({ regular: '1.0.0', fast: '1.1.0' }));
      assert.equal(resolveModule(v, kyma(), { name: 'keda' }).version, '1.0.0');
      assert.equal(resolveModule(v, kyma({}, 'fast'), { name: 'keda' }).version, '1.1.0');
      assert.equal(resolveModule(v, kyma({}, 'fast'), { name: 'keda', channel: 'regular' }).version, '1.0.0');
      const pinned = resolveModule(v, kyma(), { name: 'keda', version: '2.0.0' });
      assert.equal(pinned.template.metadata.name, 'keda-2.0.0');
      assert.equal(pinned.channel, undefined);
    });

    it('fails with a reason for unknown channels, templates and modules not offered to the Kyma', () => {
      const reason = (f: () => unknown) => {
        try {
          f();
        } catch (e) {
          return e instanceof ResolveError ? e.reason : 'other';
        }
        return 'none';
      };
      assert.equal(reason(() => resolveModule(view(meta({ regular: '1.0.0' })), kyma(), { name: 'keda', channel: 'experimental' })), 'ChannelNotFound');
      assert.equal(reason(() => resolveModule(view(meta({ regular: '9.9.9' })), kyma(), { name: 'keda' })), 'TemplateNotFound');
      assert.equal(reason(() => resolveModule(view(undefined), kyma(), { name: 'keda' })), 'ModuleNotFound');
      assert.equal(reason(() => resolveModule(view(meta({ regular: '1.0.0' }, true)), kyma(), { name: 'keda' })), 'NotOffered');
      assert.equal(resolveModule(view(meta({ regular: '1.0.0' }, true)), kyma({ 'operator.kyma-project.io/beta': 'true' }), { name: 'keda' }).version, '1.0.0');
    });
  });
});
