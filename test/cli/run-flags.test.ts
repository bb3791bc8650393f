// `kcp run` flags: upstream-like defaults, one clear line for every mistake, and a real process
// that stops gracefully on SIGTERM.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { operatorKinds } from '../../src/api/operator/index.js';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { parseDuration } from '../../src/cli/duration.js';
import { parseRunConfig, RUN_FLAG_TABLE, startControllers } from '../../src/cli/run.js';
import { startWithKinds, type AnyKind } from '../support/api.js';
import { waitFor } from '../support/wait.js';
import { CONVERTER_CONFIG, httpGet } from './run-env.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
const IM_FLAGS = ['--gardener-kubeconfig=/g', '--gardener-project=kyma-dev', `--converter-config=${CONVERTER_CONFIG}`];
const parse = (argv: string[]) => parseRunConfig(parseArgs(argv, RUN_FLAG_TABLE, { lastWins: true }));

function usageErrorOf(argv: string[]): string {
  try {
    parse(argv);
  } catch (e) {
    assert.ok(e instanceof UsageError, `a UsageError, got ${String(e)}`);
    assert.ok(!e.message.includes('\n'), `one line: ${e.message}`);
    return e.message;
  }
  assert.fail(`flags ${argv.join(' ')} were accepted`);
}

test('defaults are upstream-like: both managers, kcp-system, :8080 metrics, :8081 probes, no leader election', () => {
  const c = parse(IM_FLAGS);
  assert.equal(c.infrastructureManager, true);
  assert.equal(c.lifecycleManager, true);
  assert.equal(c.namespace, 'kcp-system');
  assert.deepEqual(c.metrics, { host: '0.0.0.0', port: 8080 });
  assert.deepEqual(c.health, { host: '0.0.0.0', port: 8081 });
  assert.equal(c.leaderElection, undefined);
  assert.deepEqual(c.kymaIntervals, { readyMs: 30_000, busyMs: 5_000, warningMs: 30_000, errorMs: 2_000 });
  assert.equal(c.kubeconfigExpirationSeconds, 86_400);
  assert.equal(c.minimalRotationTimeRatio, 0.6);
  assert.equal(c.purgeGraceMs, 300_000);
  assert.equal(c.runtimeWorkers, 25);
});

test('logs are JSON unless --log-format text, as upstream controllers log', () => {
  assert.equal(parse(['--lifecycle-manager']).logFormat, 'json');
  assert.equal(parse(['--lifecycle-manager', '--log-format=text']).logFormat, 'text');
  assert.equal(parse(['--lifecycle-manager', '--log-format', 'json']).logFormat, 'json');
});

test('naming one manager runs only that one, and the lifecycle manager alone needs no garden flags', () => {
  const lm = parse(['--lifecycle-manager']);
  assert.equal(lm.infrastructureManager, false);
  assert.equal(lm.lifecycleManager, true);
  const im = parse([...IM_FLAGS, '--lifecycle-manager=false']);
  assert.deepEqual([im.infrastructureManager, im.lifecycleManager], [true, false]);
  const upstreamNames = parse(['--gardener-kubeconfig-path=/g', '--gardener-project-name=p', `--converter-config-filepath=${CONVERTER_CONFIG}`]);
  assert.equal(upstreamNames.gardenerProject, 'p');
});

test('leader election and shards take their Lease settings from the flags', () => {
  const le = parse(['--lifecycle-manager', '--leader-elect', '--leader-election-namespace=leases', '--leader-election-lease-duration=30s']);
  assert.deepEqual(le.leaderElection, { name: 'kcp-controllers-leader', namespace: 'leases', leaseDurationMs: 30_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  const labelled = parseRunConfig(parseArgs(['--lifecycle-manager', '--leader-elect', '--leader-pod-label'], RUN_FLAG_TABLE), { POD_NAME: 'ctl-0', POD_NAMESPACE: 'kcp-system' });
  assert.deepEqual(labelled.leaderElection?.pod, { namespace: 'kcp-system', name: 'ctl-0' }, 'the Pod to label, from the downward API');
  assert.throws(() => parseRunConfig(parseArgs(['--lifecycle-manager', '--leader-elect', '--leader-pod-label'], RUN_FLAG_TABLE), { POD_NAME: 'ctl-0' }), /--leader-pod-label needs the environment variables POD_NAME and POD_NAMESPACE/);
  assert.throws(() => parseRunConfig(parseArgs(['--lifecycle-manager', '--leader-pod-label'], RUN_FLAG_TABLE), { POD_NAME: 'ctl-0', POD_NAMESPACE: 'kcp-system' }), /--leader-pod-label needs --leader-elect/);
  const sh = parse(['--lifecycle-manager', '--shards=16', '--shard-lease-prefix=ctl']);
  assert.equal(sh.sharding?.shards, 16);
  assert.equal(sh.sharding?.prefix, 'ctl');
  assert.equal(sh.sharding?.namespace, 'kcp-system');
});

test('bad flags are rejected with one line naming the flag', () => {
  assert.match(usageErrorOf(['--lifecycle-manager', '--bogus=1']), /unknown flag --bogus/);
  assert.match(usageErrorOf([]), /--gardener-kubeconfig is required/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--kyma-requeue-busy-interval=soon']), /--kyma-requeue-busy-interval must be a positive duration/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--leader-elect', '--shards=3']), /exclude each other/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--leader-elect', '--leader-election-renew-deadline=20s']), /lease-duration > renew-deadline > retry-period/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--metrics-bind-address=localhost']), /--metrics-bind-address must be \[host\]:port or 0/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--minimal-rotation-time=2']), /--minimal-rotation-time must be a number in \(0, 1\]/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--log-level=loud']), /--log-level must be one of/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--log-format=xml']), /--log-format must be one of json, text, got "xml"/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--namespace=Kcp_System']), /--namespace must be a DNS label/);
  assert.match(usageErrorOf(['--lifecycle-manager', '--max-concurrent-kyma-reconciles=0']), /must be an integer >= 1/);
  assert.match(usageErrorOf(['--infrastructure-manager=false', '--lifecycle-manager=false']), /nothing to run/);
  assert.match(usageErrorOf(['--lifecycle-manager', 'extra']), /unexpected argument "extra"/);
});

test('durations parse as Go durations', () => {
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('1.5s'), 1_500);
  assert.equal(parseDuration('10'), undefined);
});

test('unreadable files fail before anything starts, naming the flag and the file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-run-flags-'));
  try {
    const missing = join(dir, 'nope.kubeconfig');
    await assert.rejects(startControllers(parse(['--lifecycle-manager', `--kubeconfig=${missing}`])), (e: Error) => e instanceof UsageError && e.message === `cannot read --kubeconfig ${missing}: no such file`);
    const badConverter = join(dir, 'converter.json');
    writeFileSync(badConverter, '{ not json');
    await assert.rejects(startControllers(parse(['--gardener-kubeconfig=/g', '--gardener-project=p', `--converter-config=${badConverter}`])), /--converter-config .*converter\.json: .*not valid JSON/);
    const garbage = join(dir, 'garbage.kubeconfig');
    writeFileSync(garbage, 'clusters: 7\n');
    await assert.rejects(startControllers(parse(['--lifecycle-manager', `--kubeconfig=${garbage}`])), /--kubeconfig .*garbage\.kubeconfig is not a usable kubeconfig/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a KCP without the CRDs is refused at start, naming the missing ones and kcp install', async () => {
  const api = await startWithKinds([], []);
  const dir = mkdtempSync(join(tmpdir(), 'kcp-run-crds-'));
  try {
    const kubeconfig = join(dir, 'kcp.kubeconfig');
    writeFileSync(kubeconfig, api.server.clusterAccess('default').kubeconfig);
    await assert.rejects(
      startControllers(parse(['--lifecycle-manager', `--kubeconfig=${kubeconfig}`, '--metrics-bind-address=0', '--health-probe-bind-address=0'])),
      (e: Error) => e instanceof UsageError && /^the KCP has no CRD kymas\.operator\.kyma-project\.io, .*manifests\.operator\.kyma-project\.io: install them with kcp install/.test(e.message),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await api.stop();
  }
});

test('the kcp run process exits with status 2 and one line on a bad flag', async () => {
  const child = spawn(process.execPath, [MAIN, 'run', '--lifecycle-manager', '--shards=many'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 2);
  assert.equal(stderr, 'kcp: --shards must be an integer >= 0, got "many"\n');
});

test('the kcp run process stops gracefully on SIGTERM: probes answer while running, exit status 0 after', async () => {
  const api = await startWithKinds([...operatorKinds] as unknown as AnyKind[]);
  const dir = mkdtempSync(join(tmpdir(), 'kcp-run-proc-'));
  const kubeconfig = join(dir, 'kcp.kubeconfig');
  writeFileSync(kubeconfig, api.server.clusterAccess('default').kubeconfig);
  const child = spawn(process.execPath, [MAIN, 'run', '--lifecycle-manager', `--kubeconfig=${kubeconfig}`, '--health-probe-bind-address=127.0.0.1:0', '--metrics-bind-address=0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const started = await waitFor('the started log line', () => stderr.split('\n').find((l) => l.includes('"controllers started"')), 20_000);
    const health = (JSON.parse(started) as { health?: string }).health;
    assert.ok(health, 'the log line names the probe endpoint');
    assert.equal((JSON.parse(started) as { metrics?: string }).metrics, undefined, 'metrics are off with --metrics-bind-address=0');
    await waitFor('/readyz answers 200', async () => (await httpGet(`${health}/readyz`)).status === 200);
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise<'hung'>((r) => (timer = setTimeout(() => r('hung'), 15_000)))]);
    clearTimeout(timer);
    assert.equal(code, 0, `exit status (stderr: ${stderr.slice(-500)})`);
    assert.match(stderr, /"controllers stopped"/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await api.stop();
  }
});

test('kcp run --log-format text writes every line of the controllers as text', async () => {
  const api = await startWithKinds([...operatorKinds] as unknown as AnyKind[]);
  const dir = mkdtempSync(join(tmpdir(), 'kcp-run-text-'));
  const kubeconfig = join(dir, 'kcp.kubeconfig');
  writeFileSync(kubeconfig, api.server.clusterAccess('default').kubeconfig);
  const lines: string[] = [];
  const running = await startControllers(parse(['--lifecycle-manager', `--kubeconfig=${kubeconfig}`, '--metrics-bind-address=0', '--health-probe-bind-address=0', '--log-format=text']), {
    logSink: (l) => lines.push(l),
  });
  try {
    await running.ready();
  } finally {
    await running.stop();
    rmSync(dir, { recursive: true, force: true });
    await api.stop();
  }
  assert.ok(lines.some((l) => / INFO {2}kcp {2}controllers started {2}identity=/.test(l)), `a text line "controllers started": ${lines.join('\n')}`);
  assert.ok(lines.some((l) => / INFO {2}kcp {2}controllers stopped$/.test(l)), 'a text line "controllers stopped"');
  for (const l of lines) assert.match(l, /^\d{4}-\d\d-\d\dT[\d:.]+Z (DEBUG|INFO |WARN |ERROR) \S/, 'every line is text');
});

test('the Runtime admission webhook: on at :9443 by default, a URL or a Service for the API server to call, off with 0 or without the infrastructure manager', () => {
  assert.deepEqual(parse(IM_FLAGS).runtimeAdmission, { listen: { host: '0.0.0.0', port: 9443 }, url: undefined, service: undefined });
  assert.deepEqual(parse([...IM_FLAGS, '--runtime-admission-service=kcp-system/kcp-controllers-webhook:443']).runtimeAdmission?.service, { namespace: 'kcp-system', name: 'kcp-controllers-webhook', port: 443 });
  assert.equal(parse([...IM_FLAGS, '--runtime-admission-url=https://10.0.0.5:9443/validate-runtime-id']).runtimeAdmission?.url, 'https://10.0.0.5:9443/validate-runtime-id');
  assert.equal(parse([...IM_FLAGS, '--runtime-admission-bind-address=0']).runtimeAdmission, undefined);
  assert.equal(parse(['--lifecycle-manager']).runtimeAdmission, undefined);
  assert.match(usageErrorOf([...IM_FLAGS, '--runtime-admission-url=http://10.0.0.5:9443/x']), /--runtime-admission-url must be an https URL/);
  assert.match(usageErrorOf([...IM_FLAGS, '--runtime-admission-service=kcp-controllers-webhook']), /--runtime-admission-service must be namespace\/name:port/);
  assert.match(usageErrorOf([...IM_FLAGS, '--runtime-admission-url=https://a:1/x', '--runtime-admission-service=a/b:443']), /exclude each other/);
});

test('private registries and maintenance windows: upstream flag names, the policy file read and checked at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-policy-'));
  try {
    const file = join(dir, 'policy.json');
    writeFileSync(file, JSON.stringify({ rules: [{ match: { region: 'europe' }, windows: [{ days: ['Sat'], begin: '01:00:00Z', end: '05:00:00Z' }] }], default: {} }));
    const c = parse(['--lifecycle-manager', `--maintenance-window-policy=${file}`, '--min-maintenance-window-size=30m', '--oci-registry-cred-secret=private-oci-reg-creds', '--skr-image-pull-secret=pull-secret']);
    assert.equal(c.maintenancePolicy?.rules[0].match.region?.source, 'europe');
    assert.equal(c.minMaintenanceWindowMs, 30 * 60_000);
    assert.equal(c.ociRegistryCredSecret, 'private-oci-reg-creds');
    assert.equal(c.skrImagePullSecret, 'pull-secret');
    const defaults = parse(['--lifecycle-manager']);
    assert.deepEqual([defaults.maintenancePolicy, defaults.minMaintenanceWindowMs, defaults.ociRegistryCredSecret, defaults.skrImagePullSecret], [undefined, 20 * 60_000, undefined, undefined]);
    writeFileSync(file, '{"rules": [{"windows": [{"begin": "soon"}]}]}');
    assert.match(usageErrorOf(['--lifecycle-manager', `--maintenance-window-policy=${file}`]), /^--maintenance-window-policy: .*policy\.json: rules\[0\]\.windows\[0\]\.begin/);
    assert.match(usageErrorOf(['--lifecycle-manager', `--maintenance-window-policy=${join(dir, 'missing.json')}`]), /^--maintenance-window-policy: cannot read /);
    assert.match(usageErrorOf(['--lifecycle-manager', '--skr-image-pull-secret=Not_A_Name']), /^--skr-image-pull-secret must be a Secret name/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
