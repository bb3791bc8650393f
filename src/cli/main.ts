#!/usr/bin/env node
// The kcp command: the embedded landscape, the controllers for real clusters, and the CLI for people.
// Each command lives in its own module, loaded when used (a command-line call starts fast).
import { closestFlag, UsageError } from './args.js';
import { type Command, parseCommandArgs } from './command.js';

const commands: Record<string, () => Promise<{ command: Command }>> = {
  up: () => import('./up.js'),
  runtime: () => import('./runtime.js'),
  kubeconfig: () => import('./kubeconfig.js'),
  module: () => import('./module.js'),
  status: () => import('./status.js'),
  events: () => import('./events.js'),
  version: () => import('./version.js'),
  run: () => import('./run.js'),
  install: () => import('./install.js'),
  apiserver: () => import('./apiserver.js'),
  'skr-webhook': () => import('./skr-webhook.js'),
};

async function overview(): Promise<string> {
  const lines = ['kcp: a control plane for managed Kubernetes runtimes (Kyma-compatible)', '', 'Commands:'];
  for (const [name, load] of Object.entries(commands)) {
    const { command } = await load();
    lines.push(`  kcp ${name.padEnd(11)} ${command.summary}`);
  }
  lines.push('', 'Run `kcp <command> --help` for a command\'s usage.');
  return lines.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${await overview()}\n`);
    return;
  }
  if (name === '--version') return main(['version', ...rest]);
  const load = commands[name];
  if (!load) {
    const near = closestFlag(name, Object.keys(commands));
    throw new UsageError(`unknown command ${JSON.stringify(name)}: ${near ? `did you mean \`kcp ${near}\`?` : 'run `kcp --help` for the commands'}`);
  }
  const { command } = await load();
  const args = parseCommandArgs(command, name, rest);
  if (args.flags.has('help')) {
    process.stdout.write(`${command.usage}\n`);
    return;
  }
  await command.run(args);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`kcp: ${message}\n`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
