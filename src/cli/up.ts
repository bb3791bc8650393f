// `kcp up`: the whole embedded landscape in one process (see docs/landscape.md, "kcp up").
import path from 'node:path';
import { startEmbeddedLandscape, type EmbeddedLandscape } from '../landscape/embedded.js';
import type { LogLevel } from '../runtime/log.js';
import { flagInt, flagString, type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';

export const UP_USAGE = `Usage:
  kcp up [--data-dir .kcp] [--port 6443] [--registry-port N] [--registry auto|docker-registry|in-process]
         [--log-level debug|info|warn|error] [--verbose]
      Runs the embedded landscape: the API server (state in DATA-DIR), the KCP, the garden cluster with
      the Gardener simulator (Shoots become runtime clusters), the kubelet and module-operator
      simulations, the infrastructure and lifecycle managers, an OCI registry with the demo module
      catalog (published once). Writes DATA-DIR/kcp.kubeconfig and DATA-DIR/garden.kubeconfig; logs go
      to DATA-DIR/kcp.log (--verbose: also to stderr). --port 0 reuses the previous run's port when
      free, else picks any. Stop with Ctrl-C; start again to carry on where it stopped.`;

/** The line `kcp up` prints once everything runs (scripts and tests wait for it). */
export const READY_LINE_PREFIX = 'kcp up: ready';

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export async function runUp(args: ParsedArgs): Promise<EmbeddedLandscape> {
  if (args.positionals.length > 0) throw new UsageError(`unknown argument ${args.positionals[0]}\n${UP_USAGE}`);
  const dataDir = path.resolve(flagString(args, 'data-dir', '.kcp') ?? '.kcp');
  const registry = flagString(args, 'registry', 'auto');
  if (registry !== 'auto' && registry !== 'docker-registry' && registry !== 'in-process') throw new UsageError(`--registry must be auto, docker-registry or in-process, not ${JSON.stringify(registry)}`);
  const logLevel = flagString(args, 'log-level', 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const verbose = args.flags.has('verbose');
  process.stdout.write(`kcp up: starting the embedded landscape in ${dataDir} ...\n`);

  // Signals are handled from the start: one during startup aborts it (what had started is stopped).
  const lifetime = new AbortController();
  const running: { land?: EmbeddedLandscape } = {};
  let stoppingSince: number | undefined;
  const stopAndExit = (landscape: EmbeddedLandscape) =>
    landscape.stop().then(
      () => {
        process.stdout.write('kcp up: stopped; state is kept in the data dir\n');
        process.exit(0);
      },
      (e: unknown) => {
        process.stderr.write(`kcp up: stop failed: ${e instanceof Error ? e.message : String(e)}\n`);
        process.exit(1);
      },
    );
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
    if (running.land) void stopAndExit(running.land);
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));

  let land: EmbeddedLandscape;
  try {
    land = running.land = await startEmbeddedLandscape({
      dataDir,
      port: flagInt(args, 'port', 6443),
      registryPort: flagInt(args, 'registry-port', 0),
      registry,
      logLevel,
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
    await stopAndExit(land);
    return land;
  }
  process.stdout.write(summary(land));
  return land;
}

/** What runs where, and what to try next. */
export function summary(land: EmbeddedLandscape): string {
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
    `${READY_LINE_PREFIX} in ${(land.startupMs / 1000).toFixed(1)} s`,
    '',
    `  API server          ${land.server.url}  (logical clusters: default = KCP, garden, shoot--<project>--<shoot>)`,
    `  KCP kubeconfig      ${kcpKubeconfig}`,
    `  garden kubeconfig   ${rel(land.files.gardenKubeconfig)}  (Gardener project ${land.project}, namespace ${land.projectNamespace})`,
    `  registry            http://${land.registry.host}  (${land.registry.kind}${land.registry.kind === 'in-process' ? ', read-only' : ''}, storage ${rel(land.registry.storage)})`,
    `  module catalog      ${land.catalog.publishedNow ? 'published now' : 'published earlier'}: ${modules.map((m) => `${m} ${versions(m)}`).join('; ') || 'none'}`,
    `  controllers         infrastructure manager, lifecycle manager; simulated Gardener, kubelets, module operators`,
    ...(land.files.log ? [`  logs                ${rel(land.files.log)}`] : []),
    ...(land.urlChanged ? ['  note                the API server moved since the last run: runtime kubeconfigs are being rotated'] : []),
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

export const command: Command = {
  summary: 'the whole embedded landscape: API server, Gardener simulator, controllers, registry with demo modules',
  usage: UP_USAGE,
  switches: new Set(['verbose', 'help']),
  run: runUp,
};
