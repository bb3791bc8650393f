// Upstream's maintenance-window targets (kyma-project/lifecycle-manager tests/e2e
// maintenance_windows*_test.go, configured by maintenance_windows_test.mk): the template operator in
// an older version on the regular channel and a newer one that requires downtime on the fast channel;
// a policy whose window for region "asia" is open now (now .. now + 2 h) and for region "europe"
// opens tomorrow, as upstream's generate_maintenance_window_policy.sh writes it. Here the module's
// "operator" is the ConfigMap the harness's fetcher serves per version (its data names the version
// installed in the runtime), where upstream checks which operator Deployment runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, ModuleTemplate, Namespaces, type KymaObject } from '../../../src/api/operator/index.js';
import { parseMaintenancePolicy } from '../../../src/lifecycle/maintenance/policy.js';
import { MaintenanceMessages } from '../../../src/lifecycle/maintenance/windows.js';
import { isNotFound } from '../../../src/runtime/client/errors.js';
import { NS, startKymaEnv, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';

const MODULE = 'template-operator';
const OLDER = '1.1.1-e2e-test';
const NEWER = '2.4.2-e2e-test';
const HOUR = 60 * 60_000;

/** Upstream's e2e policy: asia now .. now + 2 h, europe tomorrow .. tomorrow + 2 h. */
function e2ePolicy(now: number): string {
  const at = (ms: number) => new Date(now + ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return JSON.stringify({
    rules: [
      { match: { region: 'asia' }, windows: [{ begin: at(0), end: at(2 * HOUR) }] },
      { match: { region: 'europe' }, windows: [{ begin: at(24 * HOUR), end: at(26 * HOUR) }] },
    ],
    default: {},
  });
}

describe('upstream parity: maintenance windows', () => {
  let env: KymaEnv;

  before(async () => {
    env = await startKymaEnv({ maintenancePolicy: parseMaintenancePolicy(e2ePolicy(Date.now()), 'policy.json') });
    await env.publish(MODULE, [OLDER, NEWER], { channels: { regular: OLDER, fast: NEWER } });
    await env.kcp.patch(ModuleTemplate, { namespace: NS, name: `${MODULE}-${NEWER}` }, 'merge', { spec: { requiresDowntime: true } });
  });

  after(async () => {
    await env.stop();
  });

  type Rt = Awaited<ReturnType<KymaEnv['runtime']>>;
  const installedVersion = async (rt: Rt) => {
    try {
      const cm = await rt.remote.get<{ data?: Record<string, string> } & KymaObject>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: Namespaces.Remote, name: `${MODULE}-info` });
      return cm.data?.version;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  };
  const entryOf = (k: KymaObject) => k.status?.modules?.find((m) => m.name === MODULE);
  const kymaReadyWith = (rt: Rt, probe: (k: KymaObject) => boolean) =>
    waitFor(`Kyma ${rt.kymaName} Ready`, async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Ready' && probe(k) ? k : undefined;
    });
  const remoteKymaReady = (rt: Rt) => waitFor('the runtime Kyma Ready', async () => (await env.remoteKyma(rt)).status?.state === 'Ready');
  const manifestVersion = async (rt: Rt) => (await env.manifests(rt.kymaName)).find((m) => m.metadata.labels?.[Labels.ModuleName] === MODULE)?.spec.version;

  async function enableRegularAndExpectOlder(rt: Rt): Promise<void> {
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'regular' }]);
    await waitFor(`${OLDER} installed in the runtime`, async () => (await installedVersion(rt)) === OLDER);
    await kymaReadyWith(rt, (k) => entryOf(k)?.state === 'Ready' && entryOf(k)?.version === OLDER);
    await remoteKymaReady(rt);
  }

  async function disableAndExpectRemoved(rt: Rt): Promise<void> {
    await env.setRemoteModules(rt, []);
    await waitFor('the module removed from the runtime', async () => (await installedVersion(rt)) === undefined);
    await kymaReadyWith(rt, (k) => (k.status?.modules ?? []).length === 0);
    await remoteKymaReady(rt);
  }

  it('maintenance-windows: an upgrade that requires downtime waits for the window and happens when it opens', async () => {
    // Given a Kyma in region europe (its window opens tomorrow), skipMaintenanceWindows=false.
    const rt = await env.runtime('kyma-mw', {}, { [Labels.Region]: 'europe' });
    // When the module is enabled in the regular channel (requiresDowntime=false): installed at once.
    await enableRegularAndExpectOlder(rt);

    // When the channel changes to fast (requiresDowntime=true): the older version stays, the Kyma
    // stays Ready, and the module's entry says it waits (this proves the upgrade was looked at).
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'fast' }]);
    const waiting = await kymaReadyWith(rt, (k) => entryOf(k)?.maintenance === true);
    const entry = entryOf(waiting);
    assert.equal(entry?.message, MaintenanceMessages.Waiting);
    assert.equal(entry?.version, OLDER);
    assert.equal(entry?.state, 'Ready');
    assert.equal(await manifestVersion(rt), OLDER, 'the Manifest keeps the installed version');
    assert.equal(await installedVersion(rt), OLDER, 'the runtime keeps the older operator');
    await remoteKymaReady(rt);

    // When the maintenance window becomes active (the Kyma's region label names asia, whose window is open).
    await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { metadata: { labels: { [Labels.Region]: 'asia' } } });
    await waitFor(`${NEWER} installed in the runtime`, async () => (await installedVersion(rt)) === NEWER);
    const upgraded = await kymaReadyWith(rt, (k) => entryOf(k)?.version === NEWER && entryOf(k)?.state === 'Ready');
    assert.equal(entryOf(upgraded)?.maintenance, undefined, 'no longer waiting');
    assert.equal(entryOf(upgraded)?.channel, 'fast');
    assert.equal(await manifestVersion(rt), NEWER, 'the Manifest shows the new version');
    await remoteKymaReady(rt);

    // When the module is disabled again: removed, the Kyma Ready.
    await disableAndExpectRemoved(rt);
  });

  it('maintenance-windows-initial-installation: a first installation never waits, even of a version that requires downtime', async () => {
    const rt = await env.runtime('kyma-mw-initial', {}, { [Labels.Region]: 'europe' });
    await waitFor('the Kyma Ready without modules', async () => (await env.kyma(rt.kymaName)).status?.state === 'Ready');
    // When the module in the fast channel (requiresDowntime=true) is enabled outside any window.
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'fast' }]);
    await waitFor(`${NEWER} installed in the runtime`, async () => (await installedVersion(rt)) === NEWER);
    const ready = await kymaReadyWith(rt, (k) => entryOf(k)?.state === 'Ready' && entryOf(k)?.version === NEWER);
    assert.equal(entryOf(ready)?.maintenance, undefined);
    await remoteKymaReady(rt);
    await disableAndExpectRemoved(rt);
  });

  it('maintenance-windows-skip: with skipMaintenanceWindows the upgrade happens at once', async () => {
    const rt = await env.runtime('kyma-mw-skip', {}, { [Labels.Region]: 'europe' });
    await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { spec: { skipMaintenanceWindows: true } });
    await enableRegularAndExpectOlder(rt);
    // When the channel changes to fast (requiresDowntime=true), outside the window.
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'fast' }]);
    await waitFor(`${NEWER} installed in the runtime`, async () => (await installedVersion(rt)) === NEWER);
    const ready = await kymaReadyWith(rt, (k) => entryOf(k)?.state === 'Ready' && entryOf(k)?.version === NEWER);
    assert.equal(entryOf(ready)?.maintenance, undefined);
    assert.equal(await manifestVersion(rt), NEWER);
    await remoteKymaReady(rt);
    await disableAndExpectRemoved(rt);
  });

  it('a Kyma that waited for its window and then matches none is Error, without the maintenance flag of the wait', async () => {
    const rt = await env.runtime('kyma-mw-lost', {}, { [Labels.Region]: 'europe' });
    await enableRegularAndExpectOlder(rt);
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'fast' }]);
    await kymaReadyWith(rt, (k) => entryOf(k)?.maintenance === true);

    // A region no rule names, and the policy's default gives no window.
    await env.kcp.patch(Kyma, { namespace: NS, name: rt.kymaName }, 'merge', { metadata: { labels: { [Labels.Region]: 'nowhere' } } });
    const failed = await waitFor('the Kyma Error', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Error' ? k : undefined;
    });
    const entry = entryOf(failed);
    assert.equal(entry?.state, 'Error');
    assert.equal(entry?.message, `${MaintenanceMessages.Unknown}: ${MaintenanceMessages.NoWindow}`);
    assert.equal(entry?.maintenance, undefined, 'no longer waiting for a window');
    assert.equal(entry?.version, OLDER);
  });
});

describe('maintenance windows without a policy', () => {
  let env: KymaEnv;

  before(async () => {
    env = await startKymaEnv();
    await env.publish(MODULE, [OLDER, NEWER], { channels: { regular: OLDER, fast: NEWER } });
    await env.kcp.patch(ModuleTemplate, { namespace: NS, name: `${MODULE}-${NEWER}` }, 'merge', { spec: { requiresDowntime: true } });
  });

  after(async () => {
    await env.stop();
  });

  it('an upgrade that requires downtime is Error (the window cannot be determined) and keeps the installed version, as upstream', async () => {
    const rt = await env.runtime('kyma-mw-nopolicy', { modules: [{ name: MODULE, channel: 'regular' }] });
    await waitFor('the older version Ready', async () => (await env.kyma(rt.kymaName)).status?.modules?.[0]?.state === 'Ready');
    await env.setRemoteModules(rt, [{ name: MODULE, channel: 'fast' }]);
    const failed = await waitFor('the Kyma Error', async () => {
      const k = await env.kyma(rt.kymaName);
      return k.status?.state === 'Error' ? k : undefined;
    });
    assert.equal(failed.status?.modules?.[0]?.message, 'failed to determine if maintenance window is active: no maintenance window policy configured');
    assert.equal(failed.status?.modules?.[0]?.version, OLDER);
    const manifests = await env.manifests(rt.kymaName);
    assert.deepEqual(manifests.map((m) => m.spec.version), [OLDER]);
  });
});
