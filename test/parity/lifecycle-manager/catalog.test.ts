// Upstream's catalog and channel scenarios (kyma-project/lifecycle-manager tests/e2e), step by step:
// channel switches and ModuleReleaseMeta moves upgrade, a downgrade is refused with upstream's
// message, a channel naming a missing template is Error and recovers, the runtime's catalog follows
// beta/internal per version and the deletion of templates and ModuleReleaseMetas, and a beta or
// internal module is not installed for a Kyma not labelled for it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces, type ModuleReleaseMetaObject } from '../../../src/api/operator/index.js';
import { findObject } from '../../../src/runtime/client/index.js';
import type { Client } from '../../../src/runtime/client/interface.js';
import { consistently, defaultCR, managerExists, managerReady, NS, startParityEnv, waitFor, type ParityEnv } from './module-env.js';

const setMeta = (env: ParityEnv, module: string, spec: Partial<ModuleReleaseMetaObject['spec']>) => env.kcp.patch(ModuleReleaseMeta, { namespace: NS, name: module }, 'merge', { spec });
const remoteMeta = (remote: Client, module: string) => findObject<ModuleReleaseMetaObject>(remote, ModuleReleaseMeta, { namespace: Namespaces.Remote, name: module });
const remoteTemplate = (remote: Client, name: string) => findObject(remote, ModuleTemplate, { namespace: Namespaces.Remote, name });

describe('upstream parity: catalog and channels', () => {
  let env: ParityEnv;

  before(async () => {
    env = await startParityEnv();
  });

  after(() => env.stop());

  const ready = async (kyma: string, module: string) => {
    const k = await env.kyma(kyma);
    const m = await env.manifestOf(kyma, module);
    return k.status?.state === 'Ready' && m?.status?.state === 'Ready';
  };

  it('module-upgrade-channel-switch: a channel switch upgrades, switching back is refused with upstream\'s channel-skew Warning', async () => {
    const module = 'chswitch';
    await env.publish(module, ['1.1.1', '2.4.2'], { channels: { regular: '1.1.1', fast: '2.4.2' }, data: defaultCR(module) });
    const rt = await env.runtime('ch-switch');
    await env.setRemoteModules(rt, [{ name: module }]);
    await waitFor('the module CR', () => env.moduleCR(rt.remote, module));
    await waitFor('the 1.1.1 manager ready', () => managerReady(rt.remote, module, '1.1.1'));
    await waitFor('Kyma and Manifest Ready', () => ready(rt.kymaName, module));

    await env.setRemoteModules(rt, [{ name: module, channel: 'fast' }]);
    await waitFor('the 2.4.2 manager ready', () => managerReady(rt.remote, module, '2.4.2'));
    await waitFor('the 1.1.1 manager gone', async () => !(await managerExists(rt.remote, module, '1.1.1')));
    assert.ok(await env.moduleCR(rt.remote, module), 'the module CR stays');
    await waitFor('Kyma and Manifest Ready on 2.4.2', async () => (await ready(rt.kymaName, module)) && (await env.manifestOf(rt.kymaName, module))?.spec.version === '2.4.2');

    await env.setRemoteModules(rt, [{ name: module, channel: 'regular' }]);
    await waitFor('the Kyma in Warning', async () => (await env.kymaState(rt.kymaName)) === 'Warning');
    const entry = await env.moduleEntry(rt.kymaName, module);
    assert.equal(entry?.message, 'module template update not allowed: ignore channel skew (from fast to regular), as a higher version (2.4.2) of the module was previously installed');
    assert.equal(entry?.state, 'Warning');
    assert.ok(await env.moduleCR(rt.remote, module));
    assert.ok(await managerReady(rt.remote, module, '2.4.2'), 'the newer manager keeps running');
    assert.equal(await managerExists(rt.remote, module, '1.1.1'), false);
    assert.equal((await env.manifestOf(rt.kymaName, module))?.spec.version, '2.4.2');
  });

  it('modulereleasemeta-module-upgrade-new-version: a new version in the ModuleReleaseMeta channel upgrades the module', async () => {
    const module = 'mrmupgrade';
    await env.publish(module, ['1.1.1', '2.4.2'], { channels: { regular: '1.1.1' }, data: defaultCR(module) });
    const rt = await env.runtime('mrm-upgrade');
    await env.setRemoteModules(rt, [{ name: module }]);
    await waitFor('the module CR', () => env.moduleCR(rt.remote, module));
    await waitFor('the 1.1.1 manager ready', () => managerReady(rt.remote, module, '1.1.1'));
    await waitFor('the Kyma Ready', () => ready(rt.kymaName, module));

    await env.setChannels(module, { regular: '2.4.2' });
    await waitFor('the 2.4.2 manager ready', () => managerReady(rt.remote, module, '2.4.2'));
    await waitFor('the 1.1.1 manager gone', async () => !(await managerExists(rt.remote, module, '1.1.1')));
    assert.ok(await env.moduleCR(rt.remote, module));
    await waitFor('the Kyma Ready with 2.4.2 in its status', async () => (await ready(rt.kymaName, module)) && (await env.moduleEntry(rt.kymaName, module))?.version === '2.4.2');
    assert.equal((await env.manifestOf(rt.kymaName, module))?.spec.version, '2.4.2');
  });

  it('modulereleasemeta-with-obsolete-moduletemplate: a channel naming a template that does not exist keeps the Kyma in Error with upstream\'s message', async () => {
    const module = 'obsolete';
    await env.publish(module, ['1.0.0'], { channels: { regular: '2.0.0' } });
    const rt = await env.runtime('mrm-obsolete');
    await env.setRemoteModules(rt, [{ name: module }]);
    await waitFor('the Kyma in Error', async () => (await env.kymaState(rt.kymaName)) === 'Error');
    await consistently(env, 'the Kyma stays in Error', async () => (await env.kymaState(rt.kymaName)) === 'Error', { controller: 'kyma', name: rt.kymaName });
    assert.equal((await env.moduleEntry(rt.kymaName, module))?.message, `failed to get module template: ModuleTemplate.operator.kyma-project.io "${module}-2.0.0" not found`);
    assert.equal((await env.manifests(rt.kymaName)).length, 0);
  });

  it('modulereleasemeta-sync: the runtime catalog follows beta/internal, template and ModuleReleaseMeta deletion and channel moves', async () => {
    const module = 'mrmsync';
    const [v1, v2] = ['1.1.1', '2.4.2'];
    await env.publish(module, [v1, v2], { channels: { regular: v1 } });
    const rt = await env.runtime('mrm-sync');
    const present = (remote: Client, name: string) => remoteTemplate(remote, name).then((t) => t !== undefined);

    await waitFor('the v1 template in the runtime', () => present(rt.remote, `${module}-${v1}`));
    const meta = await waitFor('the ModuleReleaseMeta in the runtime', () => remoteMeta(rt.remote, module));
    assert.deepEqual(meta.spec.channels, [{ channel: 'regular', version: v1 }]);
    assert.equal(meta.spec.beta, false);
    assert.equal(meta.spec.internal, false);
    assert.equal(await present(rt.remote, `${module}-${v2}`), false, 'a template no channel names is not copied');

    await setMeta(env, module, { beta: true });
    await waitFor('the ModuleReleaseMeta and the template gone (beta)', async () => !(await remoteMeta(rt.remote, module)) && !(await present(rt.remote, `${module}-${v1}`)));
    await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { metadata: { labels: { [Labels.Beta]: 'true' } } });
    await waitFor('both back for a beta Kyma', async () => (await remoteMeta(rt.remote, module)) !== undefined && (await present(rt.remote, `${module}-${v1}`)));

    await setMeta(env, module, { internal: true });
    await waitFor('the ModuleReleaseMeta and the template gone (internal)', async () => !(await remoteMeta(rt.remote, module)) && !(await present(rt.remote, `${module}-${v1}`)));
    await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { metadata: { labels: { [Labels.Internal]: 'true' } } });
    await waitFor('both back for an internal Kyma', async () => (await remoteMeta(rt.remote, module)) !== undefined && (await present(rt.remote, `${module}-${v1}`)));

    await env.kcp.delete(ModuleTemplate, { namespace: NS, name: `${module}-${v1}` });
    await waitFor('the v1 template gone from the runtime', async () => !(await present(rt.remote, `${module}-${v1}`)));

    await env.setChannels(module, { regular: v2 });
    await waitFor('the v2 template in the runtime', () => present(rt.remote, `${module}-${v2}`));
    await waitFor('the runtime ModuleReleaseMeta on v2', async () => (await remoteMeta(rt.remote, module))?.spec.channels?.[0]?.version === v2);

    await env.kcp.delete(ModuleReleaseMeta, { namespace: NS, name: module });
    await waitFor('the ModuleReleaseMeta gone from the runtime', async () => !(await remoteMeta(rt.remote, module)));
    await waitFor('the v2 template gone from the runtime', async () => !(await present(rt.remote, `${module}-${v2}`)));
    assert.ok(await findObject(env.kcp, ModuleTemplate, { namespace: NS, name: `${module}-${v2}` }), 'the KCP template stays');
  });

  it('modulereleasemeta-not-allowed-installation: a beta or internal module is Error for a Kyma not labelled for it, and Ready once allowed', async () => {
    const module = 'notallowed';
    await env.publish(module, ['1.0.0'], { channels: { regular: '1.0.0' }, data: defaultCR(module) });
    const rt = await env.runtime('mrm-not-allowed');
    await waitFor('the ModuleReleaseMeta in the runtime catalog', () => remoteMeta(rt.remote, module));
    await setMeta(env, module, { beta: true });
    await env.setRemoteModules(rt, [{ name: module }]);
    const error = await waitFor('the module in Error', async () => {
      const e = await env.moduleEntry(rt.kymaName, module);
      return e?.state === 'Error' ? e : undefined;
    });
    assert.equal(error.message, 'module template not allowed: beta module');
    assert.equal((await env.manifests(rt.kymaName)).length, 0, 'nothing is installed');

    await setMeta(env, module, { beta: false });
    await waitFor('the module Ready', async () => (await env.moduleEntry(rt.kymaName, module))?.state === 'Ready');

    await setMeta(env, module, { internal: true });
    const internal = await waitFor('the module in Error again', async () => {
      const e = await env.moduleEntry(rt.kymaName, module);
      return e?.state === 'Error' ? e : undefined;
    });
    assert.equal(internal.message, 'module template not allowed: internal module');
  });

  it('catalog per version and channel: a beta template hides only its channel and version from Kymas not labelled beta', async () => {
    const module = 'perversion';
    await env.publish(module, ['1.0.0', '2.0.0'], { channels: { regular: '1.0.0', fast: '2.0.0' }, data: defaultCR(module) });
    await env.kcp.patch(ModuleTemplate, { namespace: NS, name: `${module}-2.0.0` }, 'merge', { metadata: { labels: { [Labels.Beta]: 'true' } } });
    const plain = await env.runtime('per-version-plain');
    const beta = await env.runtime('per-version-beta', {}, { [Labels.Beta]: 'true' });
    await waitFor('the beta Kyma sees both channels', async () => (await remoteMeta(beta.remote, module))?.spec.channels?.length === 2 && (await remoteTemplate(beta.remote, `${module}-2.0.0`)) !== undefined);
    const plainMeta = await waitFor('the plain Kyma sees the regular channel', () => remoteMeta(plain.remote, module));
    assert.deepEqual(plainMeta.spec.channels, [{ channel: 'regular', version: '1.0.0' }]);
    assert.ok(await remoteTemplate(plain.remote, `${module}-1.0.0`));
    assert.equal(await remoteTemplate(plain.remote, `${module}-2.0.0`), undefined);

    await env.setRemoteModules(plain, [{ name: module, channel: 'fast' }]);
    await waitFor('fast refused for the plain Kyma', async () => (await env.moduleEntry(plain.kymaName, module))?.message === 'module template not allowed: beta module');
    await env.setRemoteModules(plain, [{ name: module }]);
    await waitFor('regular installed for the plain Kyma', async () => (await env.moduleEntry(plain.kymaName, module))?.state === 'Ready');
  });
});

describe('upstream parity: ModuleReleaseMeta changes trigger Kymas', () => {
  let env: ParityEnv;

  before(async () => {
    // Requeue intervals far beyond the test: only the ModuleReleaseMeta's watch event can wake the Kyma.
    const long = 600_000;
    env = await startParityEnv({ kymaIntervals: { readyMs: long, busyMs: 100, warningMs: long, errorMs: long } });
  });

  after(() => env.stop());

  it('modulereleasemeta-watch-trigger: an invalid version in a channel turns the Kyma Error through the ModuleReleaseMeta watch, a valid one Ready again', async () => {
    const module = 'watchtrigger';
    await env.publish(module, ['1.0.0'], { channels: { regular: '1.0.0', fast: '1.0.0' }, data: defaultCR(module) });
    const rt = await env.runtime('mrm-watch', { modules: [{ name: module }] });
    await waitFor('the module CR', () => env.moduleCR(rt.remote, module));
    await waitFor('the Kyma Ready', async () => (await env.kymaState(rt.kymaName)) === 'Ready');
    const key = `${NS}/${rt.kymaName}`;
    const before = env.reconciles('kyma', key);

    await env.setChannels(module, { regular: '1.2.3', fast: '1.2.3' });
    await waitFor('the Kyma in Error', async () => (await env.kymaState(rt.kymaName)) === 'Error');
    assert.ok(env.reconciles('kyma', key) > before, 'woken by the ModuleReleaseMeta change');
    const entry = await env.moduleEntry(rt.kymaName, module);
    assert.equal(entry?.state, 'Error');
    assert.equal(entry?.message, `failed to get module template: ModuleTemplate.operator.kyma-project.io "${module}-1.2.3" not found`);

    await env.setChannels(module, { regular: '1.0.0', fast: '1.0.0' });
    await waitFor('the Kyma Ready again', async () => (await env.kymaState(rt.kymaName)) === 'Ready');
    assert.equal((await env.moduleEntry(rt.kymaName, module))?.state, 'Ready');
  });
});
