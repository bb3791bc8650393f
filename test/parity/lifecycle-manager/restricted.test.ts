// Upstream's restricted-module scenarios (kyma-project/lifecycle-manager tests/e2e): modules named in
// `--restricted-modules` are offered (catalog) and installed only for Kymas their ModuleReleaseMeta's
// `spec.kymaSelector` selects, and uninstalled when a Kyma stops matching; any other module with a
// selector is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces } from '../../../src/api/operator/index.js';
import { findObject } from '../../../src/runtime/client/index.js';
import { consistently, defaultCR, managerExists, managerReady, NS, startParityEnv, waitFor, type ParityEnv } from './module-env.js';

const RESTRICTED = 'deployer';
const GA1 = 'ga-one';
const GA2 = 'ga-two';

type Selector = { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | null;

describe('upstream parity: restricted modules', () => {
  let env: ParityEnv;

  before(async () => {
    // `some-restricted-module` does not exist: a restricted list naming unknown modules changes nothing for others (upstream's sentinel).
    env = await startParityEnv({ restrictedModules: [RESTRICTED, 'some-restricted-module', 'catalogonly'] });
  });

  after(() => env.stop());

  /** Replaces the ModuleReleaseMeta's kymaSelector (upstream's UpdateModuleReleaseMetaKymaSelector); null removes it. */
  const setSelector = (module: string, selector: Selector) =>
    env.kcp.patch(ModuleReleaseMeta, { namespace: NS, name: module }, 'merge', { spec: { kymaSelector: selector === null ? null : { matchLabels: selector.matchLabels ?? null, matchExpressions: selector.matchExpressions ?? null } } });
  const byAccount = (ga: string): Selector => ({ matchExpressions: [{ key: Labels.GlobalAccountID, operator: 'In', values: [ga] }] });
  const setKymaLabel = (kyma: string, key: string, value: string) => env.kcp.patch(Kyma, { namespace: NS, name: kyma }, 'merge', { metadata: { labels: { [key]: value } } });

  it('restricted-modules: a restricted module installs where its selector matches and is uninstalled when the Kyma stops matching; a normal module with a selector is refused', async () => {
    const normal = 'normalmod';
    await env.publish(normal, ['1.0.0'], { channels: { regular: '1.0.0' }, data: defaultCR(normal) });
    await env.publish(RESTRICTED, ['1.0.0'], { channels: { regular: '1.0.0' }, data: defaultCR(RESTRICTED) });
    await setSelector(RESTRICTED, byAccount(GA2));
    const rt = await env.runtime('restricted', {}, { [Labels.GlobalAccountID]: GA2 });
    const bothReady = async () => (await env.kymaState(rt.kymaName)) === 'Ready' && (await env.remoteKyma(rt)).status?.state === 'Ready';

    await env.setRemoteModules(rt, [{ name: normal }]);
    await waitFor('the normal module CR', () => env.moduleCR(rt.remote, normal));
    await waitFor('its manager ready', () => managerReady(rt.remote, normal, '1.0.0'));
    await waitFor('both Kymas Ready', bothReady);

    await env.setRemoteModules(rt, []);
    await waitFor('the normal module removed', async () => !(await managerExists(rt.remote, normal, '1.0.0')) && (await env.moduleCR(rt.remote, normal)) === undefined);
    await waitFor('the Kyma Ready', async () => (await env.kymaState(rt.kymaName)) === 'Ready');

    await setSelector(normal, byAccount('any-global-account-id'));
    await env.setRemoteModules(rt, [{ name: normal }]);
    await waitFor('the normal module in Error', async () => (await env.moduleEntry(rt.kymaName, normal))?.state === 'Error');
    const refused = await waitFor('the runtime Kyma in Error with the message', async () => {
      const k = await env.remoteKyma(rt);
      return k.status?.state === 'Error' ? k.status.modules?.find((m) => m.name === normal) : undefined;
    });
    assert.equal(refused.message, 'module template not allowed: module has kymaSelector but is not in restricted modules list');
    await env.setRemoteModules(rt, []);
    await waitFor('both Kymas Ready again', bothReady);

    for (const step of ['enabled', 're-enabled']) {
      await env.setRemoteModules(rt, [{ name: RESTRICTED }]);
      await waitFor(`the restricted module CR (${step})`, () => env.moduleCR(rt.remote, RESTRICTED));
      await waitFor(`its manager ready (${step})`, () => managerReady(rt.remote, RESTRICTED, '1.0.0'));
      await waitFor(`both Kymas Ready (${step})`, bothReady);
      if (step === 're-enabled') break;
      await env.setRemoteModules(rt, []);
      await waitFor('the restricted module removed', async () => (await env.moduleCR(rt.remote, RESTRICTED)) === undefined && !(await managerExists(rt.remote, RESTRICTED, '1.0.0')));
      await waitFor('both Kymas Ready', bothReady);
    }

    await setSelector(RESTRICTED, byAccount(GA1));
    await waitFor('the restricted module CR removed', async () => (await env.moduleCR(rt.remote, RESTRICTED)) === undefined);
    await waitFor('its manager removed', async () => !(await managerExists(rt.remote, RESTRICTED, '1.0.0')));
    await waitFor('the KCP Kyma in Error', async () => (await env.kymaState(rt.kymaName)) === 'Error');
    const uninstalled = await waitFor('the runtime Kyma names the cause', async () => (await env.remoteKyma(rt)).status?.modules?.find((m) => m.name === RESTRICTED && m.state === 'Error'));
    assert.equal(uninstalled.message, 'module template not allowed: restricted module not allowed for this Kyma');
    await waitFor('its Manifest gone', async () => (await env.manifests(rt.kymaName)).length === 0);
    assert.equal((await env.moduleEntry(rt.kymaName, RESTRICTED))?.state, 'Error', 'the module stays Error while the Kyma does not match');
  });

  it('restricted-module-catalog-sync: a restricted module reaches the runtime catalog only while its selector selects the Kyma', async () => {
    const module = 'catalogonly';
    await env.publish(module, ['1.0.0'], { channels: { regular: '1.0.0' } });
    const rt = await env.runtime('restricted-catalog');
    const inCatalog = async () => (await findObject(rt.remote, ModuleReleaseMeta, { namespace: Namespaces.Remote, name: module })) !== undefined && (await findObject(rt.remote, ModuleTemplate, { namespace: Namespaces.Remote, name: `${module}-1.0.0` })) !== undefined;
    const absent = async () => (await findObject(rt.remote, ModuleReleaseMeta, { namespace: Namespaces.Remote, name: module })) === undefined && (await findObject(rt.remote, ModuleTemplate, { namespace: Namespaces.Remote, name: `${module}-1.0.0` })) === undefined;
    const key = { controller: 'kyma', name: rt.kymaName };

    await waitFor('the Kyma Ready (catalog synced)', async () => (await env.kymaState(rt.kymaName)) === 'Ready');
    await consistently(env, 'no selector: not in the runtime catalog', absent, key);
    await env.kcp.patch(ModuleReleaseMeta, { namespace: NS, name: module }, 'merge', { spec: { kymaSelector: {} } });
    await consistently(env, 'an empty selector matches nothing', absent, key);

    await setKymaLabel(rt.kymaName, 'operator.kyma-project.io/restricted-module', 'allowed');
    await setSelector(module, { matchLabels: { 'operator.kyma-project.io/restricted-module': 'allowed' } });
    await waitFor('in the runtime catalog', inCatalog);
    await setKymaLabel(rt.kymaName, 'operator.kyma-project.io/plan', 'premium');
    await setSelector(module, { matchLabels: { 'operator.kyma-project.io/plan': 'premium' } });
    await consistently(env, 'still in the runtime catalog', inCatalog, key);

    await setSelector(module, { matchLabels: { 'operator.kyma-project.io/plan': 'enterprise' } });
    await waitFor('removed from the runtime catalog', absent);
    await setKymaLabel(rt.kymaName, 'operator.kyma-project.io/plan', 'enterprise');
    await waitFor('back once the Kyma matches', inCatalog);
    await setSelector(module, { matchLabels: { 'operator.kyma-project.io/region': 'eu-west-1' } });
    await waitFor('removed again', absent);
    await setKymaLabel(rt.kymaName, 'operator.kyma-project.io/region', 'eu-west-1');
    await waitFor('back again', inCatalog);
  });

  it('restricted-module-normal-module-installation: with restricted modules configured, normal modules install as usual, and one given a selector is refused', async () => {
    const module = 'plainmod';
    await env.publish(module, ['1.0.0'], { channels: { regular: '1.0.0' }, data: defaultCR(module) });
    const rt = await env.runtime('restricted-normal');
    await env.setRemoteModules(rt, [{ name: module }]);
    await waitFor('the module CR', () => env.moduleCR(rt.remote, module));
    await waitFor('the manager ready', () => managerReady(rt.remote, module, '1.0.0'));
    await waitFor('both Kymas Ready', async () => (await env.kymaState(rt.kymaName)) === 'Ready' && (await env.remoteKyma(rt)).status?.state === 'Ready');

    await env.setRemoteModules(rt, []);
    await waitFor('the Kyma Ready without it', async () => (await env.kymaState(rt.kymaName)) === 'Ready' && (await env.manifests(rt.kymaName)).length === 0);
    await setSelector(module, byAccount('any-global-account-id'));
    await env.setRemoteModules(rt, [{ name: module }]);
    const entry = await waitFor('the runtime Kyma in Error', async () => {
      const k = await env.remoteKyma(rt);
      return k.status?.state === 'Error' ? k.status.modules?.find((m) => m.name === module) : undefined;
    });
    assert.equal(entry.state, 'Error');
    assert.equal(entry.message, 'module template not allowed: module has kymaSelector but is not in restricted modules list');
  });
});
