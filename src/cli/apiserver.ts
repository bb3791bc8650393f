// `kcp apiserver`: runs the embedded Kubernetes API server alone, and manages its logical clusters.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminCall } from '../apiserver/admin-client.js';
import { startApiServer } from '../apiserver/server.js';
import { type FlagTable, flagInt, flagString, type ParsedArgs, switchOn, UsageError } from './args.js';
import type { Command } from './command.js';

export const APISERVER_USAGE = `Usage:
  kcp apiserver [--port N] [--data-dir DIR] [--host 127.0.0.1] [--recover-store]
      Serve the embedded Kubernetes API server (--port 0 picks a free port). With --data-dir,
      state survives restarts and DIR/kubeconfig is written for the default logical cluster.
      A damaged store (a record failing its checksum) stops the start; --recover-store starts with
      the records that can be read, prints what was dropped and keeps the damaged files in
      DIR/store/damaged-<time>/.
  kcp apiserver cluster create NAME --data-dir DIR
  kcp apiserver cluster delete NAME --data-dir DIR
  kcp apiserver cluster list --data-dir DIR
      Manage logical clusters of the server running with DIR; create writes DIR/clusters/NAME.kubeconfig.`;

const APISERVER_FLAGS: FlagTable = { port: 'value', 'data-dir': 'value', host: 'value', 'recover-store': 'switch' };

interface RunInfo {
  url: string;
  pid: number;
}

export async function runApiServer(args: ParsedArgs): Promise<void> {
  if (args.positionals[0] === 'cluster') return clusterCommand(args);
  if (args.positionals.length > 0) throw new UsageError(`unknown argument ${args.positionals[0]} (see kcp apiserver --help)`);
  const dataDir = flagString(args, 'data-dir');
  const recoverStore = switchOn(args, 'recover-store');
  if (recoverStore && !dataDir) throw new UsageError('--recover-store needs --data-dir (without one nothing is stored)');
  const server = await startApiServer({
    port: flagInt(args, 'port', 6443),
    host: flagString(args, 'host', '127.0.0.1'),
    dataDir: dataDir ? resolve(dataDir) : undefined,
    recoverStore,
    // What the store did at start (a cut-off last record, damage dropped with --recover-store) on stderr.
    log: (level, message, fields) => process.stderr.write(`${level}: ${message}${fields ? ` ${JSON.stringify(fields)}` : ''}\n`),
  });
  if (dataDir) writeFileSync(join(dataDir, 'apiserver.json'), JSON.stringify({ url: server.url, pid: process.pid } satisfies RunInfo));
  process.stdout.write(`embedded API server listening on ${server.url}\n`);
  if (dataDir) process.stdout.write(`kubeconfig: ${join(resolve(dataDir), 'kubeconfig')}\n  try: kubectl --kubeconfig ${join(dataDir, 'kubeconfig')} get namespaces\n`);
  else process.stdout.write('no --data-dir: state is kept in memory only and no kubeconfig is written\n');
  const stop = () => {
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error('stopping the API server failed:', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

async function clusterCommand(args: ParsedArgs): Promise<void> {
  const [, verb, name] = args.positionals;
  const dataDir = flagString(args, 'data-dir');
  if (!dataDir) throw new UsageError('--data-dir is required to find the running server');
  const infoPath = join(dataDir, 'apiserver.json');
  if (!existsSync(infoPath)) throw new UsageError(`no running API server found for ${dataDir} (missing ${infoPath})`);
  const info = JSON.parse(readFileSync(infoPath, 'utf8')) as RunInfo;
  const secrets = JSON.parse(readFileSync(join(dataDir, 'tokens.json'), 'utf8')) as { adminToken: string };
  const ca = readFileSync(join(dataDir, 'ca.crt'), 'utf8');
  const call = (method: string, path: string) => adminCall(info.url, secrets.adminToken, ca, method, path);
  if (verb === 'list') {
    const out = (await call('GET', '/_kcp/clusters')) as { clusters: string[] };
    process.stdout.write(`${out.clusters.join('\n')}\n`);
    return;
  }
  if (!name) throw new UsageError(`a cluster name is required (see kcp apiserver --help)`);
  if (verb === 'create') {
    const out = (await call('PUT', `/_kcp/clusters/${encodeURIComponent(name)}`)) as { url: string; kubeconfigPath: string };
    process.stdout.write(`logical cluster ${name} at ${out.url}\nkubeconfig: ${out.kubeconfigPath}\n`);
    return;
  }
  if (verb === 'delete') {
    await call('DELETE', `/_kcp/clusters/${encodeURIComponent(name)}`);
    process.stdout.write(`logical cluster ${name} deleted\n`);
    return;
  }
  throw new UsageError(`unknown cluster command ${verb ?? ''} (see kcp apiserver --help)`);
}

export const command: Command = {
  summary: 'the embedded Kubernetes API server alone, and its logical clusters',
  usage: APISERVER_USAGE,
  flags: () => APISERVER_FLAGS,
  run: runApiServer,
};
