// `kcp runtime create|list|describe|delete` and `kcp kubeconfig` against the embedded landscape with the
// infrastructure manager and the lifecycle manager running (short simulated Gardener durations).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { LabelKymaRuntimeID, Runtime, type RuntimeObject, requiredRuntimeLabels } from '../../src/api/infrastructuremanager/index.js';
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, type KymaObject, Labels, Namespaces } from '../../src/api/operator/index.js';
import { AnnotationRetryRequested } from '../../src/api/infrastructuremanager/index.js';
import { command as kubeconfigCommand, runKubeconfig } from '../../src/cli/kubeconfig.js';
import { command as runtimeCommand, runRuntime, waitRuntimeReady } from '../../src/cli/runtime.js';
import { Shoot } from '../../src/api/gardener/index.js';
import { AnnotationFailWith } from '../../src/landscape/index.js';
import { clientFromKubeconfig, findObject } from '../../src/runtime/client/index.js';
import { type Harness, NAMESPACE, startHarness, testRuntime, waitFor } from '../infrastructure/runtime-harness.js';
import { command as eventsCommand, runEvents } from '../../src/cli/events.js';
import { command as statusCommand, runStatus } from '../../src/cli/status.js';
import { command as versionCommand, runVersion, type VersionInfo } from '../../src/cli/version.js';
import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../src/kube/object.js';
import { cliRunner, type CliRunner } from './cli-env.js';

describe('kcp runtime', () => {
  let h: Harness;
  let cli: CliRunner;
  const runtime = (words: string) => cli.run(words, runRuntime, runtimeCommand);
  const runtimeFails = (words: string) => cli.fails(words, runRuntime, runtimeCommand);

  before(async () => {
    h = await startHarness({}, { lifecycleManager: true, kymaIntervals: { readyMs: 500, busyMs: 200, warningMs: 500, errorMs: 200 } });
    cli = cliRunner(h.land.kcp);
  });
  after(async () => {
    await h?.stop();
  });

  it('rejects bad input with one-line errors before creating anything', async () => {
    const badProvider = await runtimeFails('create r0 --provider ibm --region eu-central-1');
    assert.match(badProvider.message, /unknown provider "ibm": use one of aws, azure, gcp, openstack, alicloud/);
    const badRegion = await runtimeFails('create r0 --provider gcp --region eu-central-1');
    assert.match(badRegion.message, /unknown gcp region "eu-central-1": use one of europe-west3, /);
    const minMax = await runtimeFails('create r0 --provider aws --region eu-central-1 --min 5 --max 2');
    assert.match(minMax.message, /--min 5 is greater than --max 2/);
    assert.match((await runtimeFails('create R_0 --provider aws --region eu-central-1')).message, /invalid runtime name "R_0"/);
    assert.match((await runtimeFails('create r0 --provider aws --region eu-central-1 --admin nobody')).message, /invalid administrator "nobody"/);
    assert.match((await runtimeFails('create r0 --provider aws --region eu-central-1 --purpose fun')).message, /unknown purpose "fun"/);
    assert.match((await runtimeFails('create r0 --region eu-central-1')).message, /--provider is required/);
    assert.ok(badRegion.usage, 'bad input is a usage error (exit code 2)');
    assert.equal(await findObject(h.land.kcp, Runtime, { namespace: NAMESPACE, name: 'r0' }), undefined);
    assert.equal(await findObject(h.land.kcp, Kyma, { namespace: NAMESPACE, name: 'r0' }), undefined);
    assert.match((await runtime('list')).out, /No runtimes/);
  });

  it('unknown runtimes are one-line errors naming the known ones', async () => {
    assert.match((await runtimeFails('describe nope')).message, /unknown runtime "nope": there are no runtimes/);
    assert.match((await runtimeFails('delete nope')).message, /unknown runtime "nope"/);
    assert.match((await cli.fails('nope', runKubeconfig, kubeconfigCommand)).message, /unknown runtime "nope"/);
    assert.match((await runtimeFails('frobnicate')).message, /unknown subcommand "frobnicate"/);
  });

  it('create --wait provisions the runtime as the broker would, then list, describe, kubeconfig and delete --wait', async () => {
    const created = await runtime('create r1 --provider aws --region eu-central-1 --admin a@example.com,b@example.com --min 1 --max 2 --wait --timeout 60s');
    assert.match(created.out, /runtime r1 created: aws eu-central-1, shoot c-[a-z0-9]{7}, channel regular/);
    assert.match(created.out, /runtime r1 is Ready/);
    assert.match(created.err, /runtime Pending/, 'progress lines show the state while provisioning');
    assert.match(created.err, /runtime Ready, Kyma Ready/);
    assert.match(created.err, /\(\d+s\)/, 'progress lines show the elapsed time');

    const rt = await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r1' });
    for (const label of requiredRuntimeLabels) assert.ok(rt.metadata.labels?.[label], `Runtime label ${label}`);
    assert.equal(rt.metadata.labels?.[LabelKymaRuntimeID], 'r1');
    assert.deepEqual(rt.spec.shoot.provider.workers[0].zones, ['eu-central-1a', 'eu-central-1b']);
    assert.deepEqual(rt.spec.security.administrators, ['a@example.com', 'b@example.com']);
    const kyma = await h.land.kcp.get<KymaObject>(Kyma, { namespace: NAMESPACE, name: 'r1' });
    assert.equal(kyma.spec.channel, 'regular');
    assert.equal(kyma.metadata.labels?.[Labels.KymaName], 'r1');
    assert.equal(kyma.metadata.labels?.[Labels.RuntimeID], 'r1');

    assert.match((await runtimeFails('create r1 --provider aws --region eu-central-1')).message, /runtime r1 already exists/);

    const list = await runtime('list');
    assert.match(list.out, /^NAME\s+PROVIDER\s+REGION\s+STATE\s+KYMA\s+CHANNEL\s+MODULES\s+AGE\s+MESSAGE\n/);
    assert.match(list.out, /\nr1\s+aws\s+eu-central-1\s+Ready\s+Ready\s+regular\s+-\s+\d+s\n/);
    assert.match((await runtime('list -o wide')).out, /\nr1\s+aws\s+eu-central-1\s+c-[a-z0-9]{7}\s+default\s+Ready\s+Ready\s+regular\s/);
    assert.equal((await runtime('list -o name')).out, 'runtime/r1\n');
    const json = JSON.parse((await runtime('list -o json')).out) as { name: string; state: string; kymaState: string }[];
    assert.deepEqual(json.map((r) => [r.name, r.state, r.kymaState]), [['r1', 'Ready', 'Ready']]);

    const described = (await runtime('describe r1')).out;
    assert.match(described, /Provider:\s+aws/);
    assert.match(described, /Worker pool:\s+cpu-worker-0: m6i\.large, 1\.\.2 nodes, zones eu-central-1a, eu-central-1b/);
    assert.match(described, /Provisioned\s+True/);
    assert.match(described, /Channel: regular\s+State: Ready/);
    assert.match((await runtime('describe r1 -o yaml')).out, /runtimeID: r1\n/);

    const kubeconfig = (await cli.run('r1', runKubeconfig, kubeconfigCommand)).out;
    const shootClient = clientFromKubeconfig(kubeconfig, { retries: 0 });
    try {
      const ns = await shootClient.list({ apiVersion: 'v1', kind: 'Namespace' });
      assert.ok(ns.items.some((n) => n.metadata.name === 'kyma-system'), 'the runtime cluster has kyma-system');
    } finally {
      shootClient.close();
    }

    const deleted = await runtime('delete r1 --wait --timeout 60s');
    assert.match(deleted.out, /runtime r1 deleted/);
    assert.match(deleted.err, /runtime deleted/);
    assert.equal(await findObject(h.land.kcp, Runtime, { namespace: NAMESPACE, name: 'r1' }), undefined);
    assert.equal(await findObject(h.land.kcp, Kyma, { namespace: NAMESPACE, name: 'r1' }), undefined);
    assert.equal(h.land.server.hasCluster(h.land.shootClusterName(rt.spec.shoot.name)), false, 'the runtime cluster is gone');
  });

  it('--wait ends with a one-line error when Gardener fails the runtime for good', async () => {
    await runtime('create r2 --provider gcp --region europe-west3 --max 1');
    const rt = await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r2' });
    const shootName = rt.spec.shoot.name;
    await waitFor('the Shoot of r2', () => h.shoot(shootName));
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: 'ERR_INFRA_UNAUTHORIZED' } } });
    const lines: string[] = [];
    await assert.rejects(
      waitRuntimeReady({ kcp: h.land.kcp, namespace: NAMESPACE, pollMs: 100, output: { out: () => undefined, err: (t) => void lines.push(t) } }, 'r2', 30_000),
      (e: unknown) => e instanceof Error && /^runtime r2 failed: .*ERR_INFRA_UNAUTHORIZED/.test(e.message) && !e.message.includes('\n'),
    );
    assert.match(lines.at(-1) ?? '', /runtime Failed/);
    const listed = (await runtime('list')).out;
    assert.match(listed, /\nr2\s+gcp\s+europe-west3\s+Failed\s.*ERR_INFRA_UNAUTHORIZED/, 'the list says why it failed');
    assert.equal((await runtime('list --state failed -o name')).out, 'runtime/r2\n', '--state keeps the Failed one (any case)');
    assert.match((await runtimeFails('list --state broken')).message, /unknown state "broken" for --state: use one of Pending, Ready, Failed/);

    // kcp status names it, with the reason; -o name prints the runtimes that need attention.
    const status = (await cli.run('', runStatus, statusCommand)).out;
    assert.match(status, /Needs attention \(1\):\nRUNTIME\s+WHAT\s+STATE\s+MESSAGE\nr2\s+runtime\s+Failed\s+.*ERR_INFRA_UNAUTHORIZED/);
    assert.equal((await cli.run('-o name', runStatus, statusCommand)).out, 'runtime/r2\n');

    // wait and retry end at once with the reason instead of waiting out their timeouts.
    assert.match((await runtimeFails('wait r2 --timeout 10m')).message, /^runtime r2 failed: .*ERR_INFRA_UNAUTHORIZED/);

    // events: the Runtime controller's Warning about r2, and none of another runtime's.
    const events = (await cli.run('r2 --type Warning', runEvents, eventsCommand)).out;
    assert.match(events, /^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE\n/);
    assert.match(events, /\n\S+\s+Warning\s+\S+\s+runtime\/r2\s+.*ERR_INFRA_UNAUTHORIZED/);
    assert.doesNotMatch(events, /runtime\/r1\b/);
    assert.match((await cli.run('r2 -o name', runEvents, eventsCommand)).out, /^(event\/\S+\n)+$/);

    // The operator fixes the cause (here: the injected failure goes), then retries: Ready again.
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: null } } });
    const retried = await runtime('retry r2 --wait --timeout 60s');
    assert.match(retried.out, /^retry of runtime r2 requested\nruntime r2 is Ready\n$/);
    assert.match(retried.err, /runtime Failed: [^\n]*ERR_INFRA_UNAUTHORIZED[^\n]*\n(.*\n)*runtime Pending: Shoot creation in progress/, 'progress follows the retried operation');
    const after = await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r2' });
    assert.equal(after.status?.state, 'Ready');
    assert.equal(after.metadata.annotations?.[AnnotationRetryRequested], undefined, 'the manager took the request');
    assert.match((await runtimeFails('retry r2')).message, /runtime r2 is Ready, not Failed: there is nothing to retry/);
  });

  it('a runtime whose spec cannot be converted is not retried: the operator is told to change it', async () => {
    await h.land.kcp.create(testRuntime('r6', (rt) => (rt.spec.shoot.networking.services = '100.64.0.0/13')));
    await assert.rejects(runtime('wait r6 --timeout 10m'), /runtime r6 failed: .*spec\.shoot\.networking\.services/);
    const refused = await runtimeFails('retry r6 --wait');
    assert.match(refused.message, /^runtime r6 failed with ConversionErr, which a retry cannot fix: .* \(change the Runtime with `kcp runtime update`\)$/);
    assert.equal((await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r6' })).metadata.annotations?.[AnnotationRetryRequested], undefined, 'nothing was asked of the manager');
    await runtime('delete r6 --wait --timeout 60s');
  });

  it('a retry that fails again ends the wait at once with the new reason', async () => {
    await runtime('create r4 --provider gcp --region europe-west3 --max 1');
    const shootName = (await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r4' })).spec.shoot.name;
    await waitFor('the Shoot of r4', () => h.shoot(shootName));
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: 'ERR_INFRA_UNAUTHORIZED' } } });
    await assert.rejects(runtime('wait r4 --timeout 10m'), /runtime r4 failed: .*ERR_INFRA_UNAUTHORIZED/);
    // The cause stays (another code now): the retry is followed, and its own failure ends the wait.
    await h.land.garden.patch(Shoot, { namespace: h.land.projectNamespace, name: shootName }, 'merge', { metadata: { annotations: { [AnnotationFailWith]: 'ERR_CONFIGURATION_PROBLEM' } } });
    const again = await runtimeFails('retry r4 --wait --timeout 10m');
    assert.match(again.message, /^runtime r4 failed: .*ERR_CONFIGURATION_PROBLEM/);
    assert.equal(again.usage, false);
    assert.match((await runtime('delete r4 --wait --timeout 60s')).out, /runtime r4 deleted/);
  });

  it('strict flags: a typo fails with exit code 2 and the closest flag, before anything is created', async () => {
    const typo = await runtimeFails('create r5 --provider aws --region eu-central-1 --wiat');
    assert.equal(typo.message, 'unknown flag --wiat for kcp runtime create: did you mean --wait?');
    assert.ok(typo.usage, 'a usage error (exit code 2)');
    assert.match((await runtimeFails('list --stat Failed')).message, /unknown flag --stat for kcp runtime list: did you mean --state\?/);
    assert.match((await runtimeFails('list --provider aws')).message, /unknown flag --provider for kcp runtime list/, 'a flag of another subcommand is unknown here');
    assert.match((await runtimeFails('create r5 --provider aws --region eu-central-1 --machine-type m5.huge')).message, /unknown aws machine type "m5\.huge": use one of m6i\.large, /);
    assert.match((await runtimeFails('create r5 --provider aws --region eu-central-1 --kubernetes-version latest')).message, /invalid Kubernetes version "latest"/);
    assert.match((await runtimeFails('describe r1 r2')).message, /unexpected argument "r2"/);
    assert.match((await runtimeFails('create r5 --provider aws --provider gcp --region eu-central-1')).message, /--provider is given twice/);
    assert.match((await runtimeFails('delete r1 --timeout 5m')).message, /--timeout goes with --wait/);
    assert.equal(await findObject(h.land.kcp, Runtime, { namespace: NAMESPACE, name: 'r5' }), undefined, 'nothing was created');
  });

  it('update --wait changes the cluster and returns once the control plane applied it; wait follows; version names the control plane', async () => {
    assert.match((await runtime('create r3 --provider aws --region eu-central-1 --max 2 --channel fast --wait --timeout 60s')).out, /runtime r3 created: .*, channel fast/);
    assert.match((await runtimeFails('update r3')).message, /nothing to update: give at least one of --machine-type/);
    assert.match((await runtimeFails('update r3 --min 5')).message, /--min 5 is greater than --max 2/);
    assert.match((await runtimeFails('update r3 --machine-type n2-standard-2')).message, /unknown aws machine type "n2-standard-2"/);
    assert.match((await runtimeFails('update r3 --oidc-client-id x')).message, /OIDC needs both --oidc-issuer-url and --oidc-client-id/);
    const before = await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r3' });

    const updated = await runtime('update r3 --machine-type m6i.xlarge --max 4 --admin ops@example.com --oidc-issuer-url https://issuer.example.com --oidc-client-id kyma --wait --timeout 60s');
    assert.match(updated.out, /runtime r3 updated \(cluster\)\nruntime r3 is Ready with the change\n/);
    const after = await h.land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name: 'r3' });
    assert.ok((after.metadata.generation ?? 0) > (before.metadata.generation ?? 0));
    assert.equal(after.status?.state, 'Ready');
    assert.ok(after.status?.conditions?.some((c) => (c.observedGeneration ?? 0) >= (after.metadata.generation ?? 0)), 'the Ready status speaks of the new spec');
    assert.deepEqual([after.spec.shoot.provider.workers[0].machine.type, after.spec.shoot.provider.workers[0].maximum], ['m6i.xlarge', 4]);
    assert.deepEqual(after.spec.security.administrators, ['ops@example.com']);
    assert.equal(after.spec.shoot.kubernetes?.kubeAPIServer?.oidcConfig?.issuerURL, 'https://issuer.example.com');
    const shoot = await h.shoot(after.spec.shoot.name);
    assert.deepEqual([shoot?.spec.provider.workers?.[0].machine.type, shoot?.spec.provider.workers?.[0].maximum], ['m6i.xlarge', 4], 'the Shoot carries the change');

    assert.match((await runtime('update r3 --max 4')).out, /runtime r3 unchanged/);
    // The channel: the KCP Kyma's at creation seeded the runtime's own Kyma; `update --channel`
    // switches it there, as the runtime admin would, and the KCP Kyma follows.
    const runtimeKyma = clientFromKubeconfig((await cli.run('r3', runKubeconfig, kubeconfigCommand)).out, { retries: 0 });
    try {
      const remoteChannel = async () => (await runtimeKyma.get<KymaObject>(Kyma, { namespace: Namespaces.Remote, name: DEFAULT_REMOTE_KYMA_NAME })).spec.channel;
      assert.equal(await remoteChannel(), 'fast', "the runtime Kyma was created with the KCP Kyma's channel");
      assert.match((await runtime('update r3 --channel fast')).out, /runtime r3 unchanged/);
      assert.match((await runtime('update r3 --channel regular')).out, /runtime r3 updated \(channel regular\)/);
      assert.equal(await remoteChannel(), 'regular', 'the channel was switched in the runtime Kyma');
      await waitFor('the KCP Kyma following the runtime Kyma to regular', async () => (await h.land.kcp.get<KymaObject>(Kyma, { namespace: NAMESPACE, name: 'r3' })).spec.channel === 'regular');
    } finally {
      runtimeKyma.close();
    }

    assert.match((await runtime('wait r3 --timeout 60s')).out, /runtime r3 is Ready/);

    const secretKey = { namespace: NAMESPACE, name: 'kubeconfig-r3' };
    const oldKubeconfig = (await h.land.kcp.get<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret' }, secretKey)).data.config;
    assert.match((await runtime('rotate r3 --wait --timeout 60s')).out, /runtime r3's kubeconfig rotated/);
    const rotated = await h.land.kcp.get<KubeObject & { data: Record<string, string> }>({ apiVersion: 'v1', kind: 'Secret' }, secretKey);
    assert.notEqual(rotated.data.config, oldKubeconfig, 'the Secret holds a new kubeconfig');
    assert.match((await runtimeFails('retry r3')).message, /runtime r3 is Ready, not Failed: there is nothing to retry/);

    const version = JSON.parse((await cli.run('-o json', runVersion, versionCommand)).out) as VersionInfo;
    assert.equal(version.client.version, JSON.parse(readFileSync('package.json', 'utf8')).version);
    assert.equal(version.controlPlane?.version, version.client.version, 'the controllers announced their version');
    assert.ok(version.controlPlane?.replica, 'and which replica started last');

    assert.match((await runtime('delete r3')).out, /deletion of runtime r3 started/);
    assert.match((await runtime('wait r3 --for deleted --timeout 60s')).out, /runtime r3 deleted/);
    assert.equal(await findObject(h.land.kcp, Runtime, { namespace: NAMESPACE, name: 'r3' }), undefined);
  });
});
