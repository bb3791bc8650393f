// `kcp up`: the whole embedded landscape (see docs/landscape.md, "kcp up"): the landscape with the
// control plane's composition root pointed at it (src/up). The landscape (API server, simulators,
// registry) runs in a child process of its own, the controllers in this one, as in production
// (--landscape-in-process keeps both in one process for debugging). It takes the same controller
// flags as `kcp run`.
import path from 'node:path';
import { Namespaces } from '../api/operator/index.js';
import { startUp, type Up, type UpOptions } from '../up/index.js';
import { type FlagTable, type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { clientLimitsFrom, CONTROLLER_FLAGS, controlPlaneConfigFrom, type Flag, FlagReader, flagsUsage, flagTableOf, withDefaults } from './controller-flags.js';

/** Flags of `kcp up` only: where the landscape keeps its state and listens. */
export const LANDSCAPE_FLAGS: readonly Flag[] = [
  { name: 'data-dir', type: 'path', default: '.kcp', help: 'state of the landscape (API server objects, registry, kubeconfigs, logs)' },
  { name: 'port', type: 'int', default: '6443', help: 'port of the API server (0: the previous run\'s port when free, else any)' },
  { name: 'registry-port', type: 'int', default: '0', help: 'port of the registry (0: the previous run\'s port when free, else any)' },
  { name: 'registry', type: 'string', default: 'auto', help: 'auto, docker-registry or in-process (read-only)' },
  { name: 'recover-store', type: 'bool', default: 'false', help: 'start on a damaged API server store with the records that can be read (the damaged files are kept in DATA-DIR/store/damaged-<time>/)' },
  { name: 'verbose', type: 'bool', default: 'false', help: 'also write the logs to stderr' },
  { name: 'landscape-in-process', type: 'bool', default: 'false', help: 'run the API server and the simulators in the controllers\' process (debugging; default: a process of their own)' },
];

/** The controller flags of `kcp run`, with metrics and probes on loopback, on any free port (the banner says which). */
export const UP_FLAGS: readonly Flag[] = [
  ...LANDSCAPE_FLAGS,
  ...withDefaults(CONTROLLER_FLAGS, {
    'metrics-bind-address': '127.0.0.1:0',
    'health-probe-bind-address': '127.0.0.1:0',
    // The runtimes' webhooks run in the landscape, on this machine, and reach the listener on loopback.
    'enable-kcp-watcher': 'true',
    'watcher-listener-address': '127.0.0.1:0',
    // The landscape's API server calls the Runtime admission webhook on loopback.
    'runtime-admission-bind-address': '127.0.0.1:0',
    // A person reads these logs (DATA-DIR/kcp.log, --verbose); `--log-format json` for tools.
    'log-format': 'text',
  }),
];

export const UP_FLAG_TABLE: FlagTable = flagTableOf(UP_FLAGS);

export const UP_USAGE = [
  'Usage:',
  '  kcp up [--data-dir .kcp] [--port 6443] [--registry auto|docker-registry|in-process] [controller flags]',
  '      Runs the embedded landscape: the API server (state in DATA-DIR), the KCP, the garden cluster with',
  '      the Gardener simulator (Shoots become runtime clusters), the kubelet and module-operator',
  '      simulations, the infrastructure and lifecycle managers, an OCI registry with the demo module',
  '      catalog (published once) and the demo functions module manager. The landscape runs in a process of',
  '      its own, the controllers in this one (--landscape-in-process: both in one). Writes DATA-DIR/kcp.kubeconfig',
  '      and DATA-DIR/garden.kubeconfig; logs go to DATA-DIR/kcp.log (--verbose: also to stderr), as text',
  '      lines unless --log-format json. Stop with Ctrl-C; start again to carry on where it stopped. The',
  '      controller flags are those of kcp run (durations: 500ms, 30s, 5m, 1h30m).',
  '',
  'Flags:',
  ...flagsUsage(UP_FLAGS),
].join('\n');

/** The line `kcp up` prints once everything runs (scripts and tests wait for it). */
export const READY_LINE_PREFIX = 'kcp up: ready';

/** What `kcp up` starts, from its flags; every problem is a one-line UsageError. */
export function parseUpOptions(args: ParsedArgs): Omit<UpOptions, 'echoLog' | 'signal'> & { verbose: boolean } {
  if (args.positionals.length > 0) throw new UsageError(`unknown argument ${args.positionals[0]} (kcp up takes only flags; see kcp up --help)`);
  const flags = new FlagReader(args, UP_FLAGS, 'kcp up');
  const registry = flags.text('registry');
  if (registry !== 'auto' && registry !== 'docker-registry' && registry !== 'in-process') throw new UsageError(`--registry must be auto, docker-registry or in-process, got ${JSON.stringify(registry)}`);
  return {
    dataDir: path.resolve(flags.text('data-dir') || '.kcp'),
    port: flags.int('port'),
    registryPort: flags.int('registry-port'),
    registry,
    logLevel: flags.level(),
    logFormat: flags.logFormat(),
    verbose: flags.bool('verbose'),
    recoverStore: flags.bool('recover-store'),
    landscapeMode: flags.bool('landscape-in-process') ? 'in-process' : 'process',
    controlPlane: controlPlaneConfigFrom(flags, Namespaces.ControlPlane),
    ...clientLimitsFrom(flags),
  };
}

export async function runUp(args: ParsedArgs): Promise<Up> {
  const { verbose, ...options } = parseUpOptions(args);
  const dataDir = options.dataDir;
  process.stdout.write(`kcp up: starting the embedded landscape in ${dataDir} ...\n`);

  // Signals are handled from the start: one during startup aborts it (what had started is stopped).
  const lifetime = new AbortController();
  const running: { up?: Up } = {};
  let stoppingSince: number | undefined;
  // Both end the process; the stop's outcome decides the exit status.
  const exitStopped = (): void => {
    process.stdout.write('kcp up: stopped; state is kept in the data dir\n');
    process.exit(0);
  };
  const exitStopFailed = (e: unknown): void => {
    process.stderr.write(`kcp up: stop failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  };
  const onSignal = (signalName: string) => {
    if (stoppingSince !== undefined) {
      // npm and shells may pass one Ctrl-C on as a second signal at once: only a later one forces.
      if (Date.now() - stoppingSince < 1000) return;
      process.stdout.write('kcp up: stopping forcefully\n');
      process.exit(130);
    }
    stoppingSince = Date.now();
    process.stdout.write(`kcp up: ${signalName} received, stopping (Ctrl-C again to force) ...\n`);
    lifetime.abort();
    if (running.up) running.up.stop().then(exitStopped, exitStopFailed);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  let up: Up;
  try {
    up = running.up = await startUp({
      ...options,
      ...(verbose ? { echoLog: (line: string) => process.stderr.write(`${line}\n`) } : {}),
      signal: lifetime.signal,
    });
  } catch (e) {
    // Aborted by a signal: the start undid what it had started.
    if (stoppingSince === undefined) throw e;
    process.stdout.write('kcp up: stopped during startup; state is kept in the data dir\n');
    process.exit(0);
  }
  if (stoppingSince !== undefined) {
    await up.stop().then(exitStopped, exitStopFailed);
    return up;
  }
  process.stdout.write(summary(up));
  // The controllers without the landscape, or the landscape without its controllers, are no use:
  // either ending by itself (a failure, a killed process) stops kcp up too, with a non-zero exit.
  const ended = (what: string): void => {
    if (stoppingSince !== undefined) return;
    stoppingSince = Date.now();
    process.stderr.write(`kcp up: ${what}; stopping\n`);
    up.stop().then(
      () => process.exit(1),
      () => process.exit(1),
    );
  };
  const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));
  up.controlPlane.done.then(
    () => ended('the controllers stopped (no error)'),
    (e: unknown) => ended(`the controllers stopped (${reason(e)})`),
  );
  up.landscapeDone.catch((e: unknown) => ended(reason(e)));
  return up;
}

/** What runs where, and what to try next. */
export function summary(up: Up): string {
  const land = up.landscapeInfo;
  const rel = (p: string) => {
    const r = path.relative(process.cwd(), p);
    return r && !r.startsWith('..') ? r : p;
  };
  const kcpKubeconfig = rel(land.files.kcpKubeconfig);
  const modules = [...new Set(land.catalog.modules.map((m) => m.name))];
  const versions = (name: string) =>
    land.catalog.modules
      .filter((m) => m.name === name)
      .map((m) => `${m.version} (${m.channels.join(', ')})`)
      .join(', ');
  const first = modules[0] ?? 'MODULE';
  const lines = [
    `${READY_LINE_PREFIX} in ${(up.startupMs / 1000).toFixed(1)} s`,
    '',
    `  API server          ${land.url}  (logical clusters: default = KCP, garden, shoot--<project>--<shoot>)`,
    `  KCP kubeconfig      ${kcpKubeconfig}`,
    `  garden kubeconfig   ${rel(land.files.gardenKubeconfig)}  (Gardener project ${land.project}, namespace ${land.projectNamespace})`,
    `  registry            http://${land.registry.host}  (${land.registry.kind}${land.registry.kind === 'in-process' ? ', read-only' : ''}, storage ${rel(land.registry.storage)})`,
    `  module catalog      ${land.catalog.publishedNow ? 'published now' : 'published earlier'}: ${modules.map((m) => `${m} ${versions(m)}`).join('; ') || 'none'}`,
    `  controllers         ${controllersLine(up)} (pid ${process.pid})`,
    `  simulators          Gardener, kubelets, module operators; functions module manager (${land.pid === process.pid ? 'same process' : `with the API server, pid ${land.pid}`})`,
    `  metrics             ${metricsLine(up)}`,
    `  health              ${up.controlPlane.healthUrl ? `${up.controlPlane.healthUrl}/healthz, ${up.controlPlane.healthUrl}/readyz` : 'off'}`,
    `  runtime watcher     ${up.controlPlane.watcher ? `listener ${up.controlPlane.watcher.listener.url}/v2/<manager>/event (mutual TLS, CA in Secret kcp-system/klm-watcher)` : 'off (Kymas and Manifests are polled)'}`,
    `  runtime admission   ${up.controlPlane.runtimeAdmission ? `${up.controlPlane.runtimeAdmission.url} (refuses a second Runtime with one runtime id; CA in Secret kcp-system/kcp-runtime-admission-ca)` : 'off'}`,
    ...(land.files.log ? [`  logs                ${rel(land.files.log)}`] : []),
    ...(land.urlChanged ? ['  note                the API server moved since the last run: runtime kubeconfigs are being rotated'] : []),
    ...(land.catalog.relinked.length > 0 ? [`  note                the registry moved since the last run: ${land.catalog.relinked.length} module template(s) now link it`] : []),
    '',
    'Next, in another terminal (`npx kcp` runs this package\'s command; `npm link` puts `kcp` on your PATH):',
    `  export KUBECONFIG=${kcpKubeconfig}`,
    '  npx kcp runtime create demo --provider aws --region eu-central-1 --wait',
    '  npx kcp runtime list',
    `  npx kcp module enable demo ${first} --wait        # channel regular; --channel fast for the newer version`,
    '  npx kcp status',
    '  kubectl --kubeconfig "$(npx kcp kubeconfig demo --path)" get deployments -n kyma-system',
    `  npx kcp module disable demo ${first} --wait`,
    '  npx kcp runtime delete demo --wait',
    '',
    'Ctrl-C stops everything; `kcp up` again continues where it stopped.',
    '',
  ];
  return lines.join('\n');
}

/** Where /metrics is: its own address, else the probes' listener (which serves it too), else off. */
function metricsLine(up: Up): string {
  if (up.controlPlane.metricsUrl) return `${up.controlPlane.metricsUrl}/metrics`;
  return up.controlPlane.healthUrl ? `${up.controlPlane.healthUrl}/metrics (with the probes)` : 'off';
}

function controllersLine(up: Up): string {
  const names = [up.controlPlane.infrastructure && 'infrastructure manager', up.controlPlane.lifecycle && 'lifecycle manager'].filter(Boolean);
  return names.join(', ');
}

export const command: Command = {
  summary: 'the whole embedded landscape: API server, Gardener simulator, controllers, registry with demo modules',
  usage: UP_USAGE,
  flags: () => UP_FLAG_TABLE,
  lastFlagWins: true,
  run: runUp,
};
