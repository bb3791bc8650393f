#!/usr/bin/env node
// The kcp command: entry point for the embedded landscape, the API server and the CLI for people.
import { runApiServer, APISERVER_USAGE } from './apiserver.js';
import { parseArgs, UsageError } from './args.js';
import { MODULE_PUSH_SWITCHES, MODULE_PUSH_USAGE, runModulePush } from './module-push.js';

const USAGE = `kcp: a control plane for managed Kubernetes runtimes

Commands:
  kcp up [--data-dir .kcp] [--port N]   start the embedded landscape (today: the embedded API server)
  kcp apiserver ...                      the embedded Kubernetes API server alone (see kcp apiserver --help)
  kcp module push DIR --registry HOST    package a module directory as an OCI artifact and push it

${APISERVER_USAGE}

${MODULE_PUSH_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  const args = parseArgs(rest, command === 'module' ? MODULE_PUSH_SWITCHES : undefined);
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (args.flags.has('help')) {
    process.stdout.write(`${command === 'apiserver' ? APISERVER_USAGE : USAGE}\n`);
    return;
  }
  switch (command) {
    case 'apiserver':
      return runApiServer(args);
    case 'module':
      if (args.positionals[0] !== 'push') throw new UsageError(MODULE_PUSH_USAGE);
      await runModulePush(args);
      return;
    case 'up': {
      if (!args.flags.has('data-dir')) args.flags.set('data-dir', '.kcp');
      return runApiServer(args);
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`kcp: ${message}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
