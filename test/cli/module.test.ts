// `kcp module list|enable|disable` and `kcp status` against a KCP running the lifecycle manager, with
// test runtimes (logical clusters plus their kubeconfig Secrets) and modules served by a fake fetcher.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type KymaObject, Labels, ModuleReleaseMeta, ModuleTemplate, Namespaces } from '../../src/api/operator/index.js';
import type { KubeObject } from '../../src/kube/object.js';
import { parseCommandArgs } from '../../src/cli/command.js';
import { command as moduleCommand, runModule } from '../../src/cli/module.js';
import { runStatus } from '../../src/cli/status.js';
import { command as runtimeCommand, runRuntime } from '../../src/cli/runtime.js';
import { findObject } from '../../src/runtime/client/index.js';
import { type KymaEnv, startKymaEnv } from '../lifecycle/kyma-env.js';
import { cliRunner, type CliRunner } from './cli-env.js';

const NS = Namespaces.ControlPlane;

describe('kcp module', () => {
  let env: KymaEnv;
  let cli: CliRunner;
  let r1: Awaited<ReturnType<KymaEnv['runtime']>>;
  const mod = (words: string) => cli.run(words, runModule, moduleCommand);
  const modFails = (words: string) => cli.fails(words, runModule, moduleCommand);

  before(async () => {
    env = await startKymaEnv();
    await env.publish('demo-echo', ['1.0.0', '1.1.0'], { channels: { regular: '1.0.0', fast: '1.1.0' } });
    await env.publish('demo-beta', ['0.1.0'], { beta: true });
    await env.publish('base-agent', ['2.0.0'], { mandatory: '2.0.0' });
    r1 = await env.runtime('r1');
    cli = cliRunner(env.kcp);
    await env.setRemoteModules(r1, []); // waits until the lifecycle manager created the runtime Kyma
  });
  after(async () => {
    await env?.stop();
  });

  it('module list shows the catalog: channels with their versions, beta and mandatory modules', async () => {
    const { out } = await mod('list');
    assert.match(out, /^MODULE\s+CHANNELS\s+VERSIONS\s+FLAGS\n/);
    assert.match(out, /\nbase-agent\s+\(mandatory\) 2\.0\.0\s+2\.0\.0\s+mandatory\n/);
    assert.match(out, /\ndemo-beta\s+regular=0\.1\.0\s+0\.1\.0\s+beta\n/);
    assert.match(out, /\ndemo-echo\s+regular=1\.0\.0, fast=1\.1\.0\s+1\.0\.0, 1\.1\.0\s+-\n/);
    const json = JSON.parse((await mod('list -o json')).out) as { name: string; channels: Record<string, string> }[];
    assert.deepEqual(json.find((e) => e.name === 'demo-echo')?.channels, { regular: '1.0.0', fast: '1.1.0' });
  });

  it('bad module requests are one-line errors and change nothing in the runtime', async () => {
    assert.match((await modFails('enable r1 nosuch')).message, /unknown module "nosuch": available modules: demo-beta, demo-echo/);
    assert.match((await modFails('enable r9 demo-echo')).message, /unknown runtime "r9": known runtimes: r1/);
    assert.match((await modFails('enable r1 demo-echo --channel slow')).message, /module demo-echo has no channel "slow": channels regular, fast/);
    assert.match((await modFails('enable r1 demo-echo --version 9.9.9')).message, /module demo-echo has no version "9\.9\.9": versions 1\.0\.0, 1\.1\.0/);
    assert.match((await modFails('enable r1 demo-echo --channel fast --version 1.1.0')).message, /exclude each other/);
    assert.match((await modFails('enable r1 base-agent')).message, /module base-agent is mandatory/);
    assert.match((await modFails('enable r1 demo-beta')).message, /module demo-beta is beta: runtime r1 does not admit beta modules/);
    assert.match((await modFails('disable r1 demo-echo')).message, /module demo-echo is not enabled in runtime r1/);
    assert.match((await modFails('enable r1')).message, /a runtime and a module are required/);
    assert.match((await modFails('list -o xml')).message, /unknown output format "xml"/);
    assert.deepEqual((await env.remoteKyma(r1)).spec.modules ?? [], []);
  });

  it('module enable --wait edits the runtime Kyma and returns once the module is Ready; disable --wait removes it', async () => {
    const enabled = await mod('enable r1 demo-echo --channel fast --wait --timeout 30s');
    assert.match(enabled.out, /module demo-echo enabled in runtime r1 \(channel fast\)/);
    assert.match(enabled.out, /module demo-echo is Ready in runtime r1 \(version 1\.1\.0\)/);
    assert.deepEqual((await env.remoteKyma(r1)).spec.modules?.map((m) => [m.name, m.channel]), [['demo-echo', 'fast']], 'the runtime Kyma carries the module, as a runtime admin would set it');
    const installed = await findObject(r1.remote, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: Namespaces.Remote, name: 'demo-echo-info' });
    assert.equal((installed as { data?: Record<string, string> } | undefined)?.data?.version, '1.1.0', 'the module is installed in the runtime');

    assert.match((await mod('enable r1 demo-echo --channel fast')).out, /already enabled/);
    const listed = (await mod('list --runtime r1')).out;
    assert.match(listed, /\ndemo-echo\s+fast\s+1\.1\.0\s+Ready/);

    const status = JSON.parse((await cli.run('-o json', runStatus)).out) as { modules: { byState: Record<string, number> }; manifests: { total: number } };
    assert.equal(status.modules.byState.Ready, 1);
    assert.ok(status.manifests.total >= 2, 'the module and the mandatory module each have a Manifest');
    assert.match((await cli.run('', runStatus)).out, /\nmodules\s+1\s+Ready 1\n/);

    const disabled = await mod('disable r1 demo-echo --wait --timeout 30s');
    assert.match(disabled.out, /module demo-echo removed from runtime r1/);
    const kyma = await env.kyma('r1');
    assert.equal((kyma as KymaObject).status?.modules?.some((m) => m.name === 'demo-echo'), false);
    assert.equal(await findObject(r1.remote, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: Namespaces.Remote, name: 'demo-echo-info' }), undefined, 'the module is gone from the runtime');
  });

  it('--wait on a channel switch returns once the new version is Ready, and ends at once on a refused downgrade or an Error', async () => {
    assert.match((await mod('enable r1 demo-echo --wait --timeout 30s')).out, /module demo-echo is Ready in runtime r1 \(version 1\.0\.0\)/);
    const switched = await mod('enable r1 demo-echo --channel fast --wait --timeout 30s');
    assert.match(switched.out, /module demo-echo is Ready in runtime r1 \(version 1\.1\.0\)/);
    // When the command returned, the new version was Ready in the control plane and installed in the runtime.
    const status = (await env.kyma('r1')).status?.modules?.find((m) => m.name === 'demo-echo');
    assert.deepEqual([status?.version, status?.channel, status?.state], ['1.1.0', 'fast', 'Ready']);
    const installed = await findObject<KubeObject & { data?: Record<string, string> }>(r1.remote, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: Namespaces.Remote, name: 'demo-echo-info' });
    assert.equal(installed?.data?.version, '1.1.0');

    // Back to regular is a downgrade the lifecycle manager refuses: the wait ends with its reason, not at its 10 minutes.
    const refused = await modFails('enable r1 demo-echo --channel regular --wait --timeout 10m');
    assert.match(refused.message, /^module demo-echo in runtime r1: the change to channel regular was refused: module template update not allowed: ignore channel skew \(from fast to regular\), as a higher version \(1\.1\.0\) of the module was previously installed/);
    assert.equal(refused.usage, false, 'a refused change is exit code 1, not a usage error');

    // A module whose artifact cannot be fetched goes Error: the wait ends with the reason at once.
    await env.kcp.create({ apiVersion: ModuleTemplate.apiVersion, kind: ModuleTemplate.kind, metadata: { name: 'demo-broken-1.0.0', namespace: NS, labels: { [Labels.ModuleName]: 'demo-broken' } }, spec: { moduleName: 'demo-broken', version: '1.0.0', resources: [{ name: 'rawManifest', link: 'https://modules.test/missing' }] } });
    await env.kcp.create({ apiVersion: ModuleReleaseMeta.apiVersion, kind: ModuleReleaseMeta.kind, metadata: { name: 'demo-broken', namespace: NS }, spec: { moduleName: 'demo-broken', channels: [{ channel: 'regular', version: '1.0.0' }] } });
    const broken = await modFails('enable r1 demo-broken --wait --timeout 10m');
    assert.match(broken.message, /^module demo-broken in runtime r1 is in Error: .*no module at https:\/\/modules\.test\/missing/);

    // -o name on both lists, and for the changes.
    assert.match((await mod('list -o name')).out, /^module\/base-agent\nmodule\/demo-beta\nmodule\/demo-broken\nmodule\/demo-echo\n$/);
    assert.equal((await mod('list --runtime r1 -o name')).out, 'module/demo-broken\nmodule/demo-echo\n');
    assert.equal((await mod('list r1 -o name')).out, 'module/demo-broken\nmodule/demo-echo\n', 'the runtime as an argument, as in every other command');
    assert.match((await modFails('list r1 --runtime r1')).message, /give the runtime once/);
    assert.equal((await mod('disable r1 demo-broken -o name')).out, 'module/demo-broken\n');
    assert.match((await modFails('enable r1 demo-echo --chanel fast')).message, /^unknown flag --chanel for kcp module enable: did you mean --channel\?$/);
    assert.match((await modFails('list --runtime')).message, /--runtime needs a value/);
  });

  it('runtime update --channel --wait follows the modules to the new channel, and ends at once when one refuses', async () => {
    const r2 = await env.runtime('r2');
    await env.setRemoteModules(r2, []);
    assert.match((await mod('enable r2 demo-echo --wait --timeout 30s')).out, /Ready in runtime r2 \(version 1\.0\.0\)/);
    const rt = (words: string) => cli.run(words, runRuntime, runtimeCommand);
    assert.match((await rt('update r2 --channel fast --wait --timeout 30s')).out, /runtime r2 updated \(channel fast\)\nruntime r2 is Ready with the change\n/);
    assert.equal((await env.remoteKyma(r2)).spec.channel, 'fast', 'the channel was switched in the runtime Kyma, as its admin would');
    const status = (await env.kyma('r2')).status;
    assert.equal(status?.activeChannel, 'fast');
    assert.deepEqual(status?.modules?.map((m) => [m.name, m.version, m.state]), [['demo-echo', '1.1.0', 'Ready']]);
    const refused = await cli.fails('update r2 --channel regular --wait --timeout 10m', runRuntime, runtimeCommand);
    assert.match(refused.message, /^runtime r2's modules did not all follow channel regular: demo-echo: module template update not allowed: ignore channel skew \(from fast to regular\), as a higher version \(1\.1\.0\) of the module was previously installed/);
    // The runtime keeps the channel asked for (the KCP Kyma follows it); the module keeps its version.
    assert.equal((await env.remoteKyma(r2)).spec.channel, 'regular');
    const kept = await env.kyma('r2');
    assert.equal(kept.spec.channel, 'regular');
    assert.deepEqual(kept.status?.modules?.map((m) => [m.name, m.version, m.state]), [['demo-echo', '1.1.0', 'Warning']]);
  });

  it('module push is handed to the module-push command with its own flags', async () => {
    await assert.rejects(moduleCommand.run(parseCommandArgs(moduleCommand, 'module', ['push', 'some-dir', '--insecure'])), /--registry HOST\[:PORT\] is required/);
  });
});
