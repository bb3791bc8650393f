// Strict argument parsing: every spelling of a flag, and every mistake ending in one line that names
// the closest flag; then the compiled `kcp` binary's exit codes for them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { closestFlag, type FlagTable, parseArgs, UsageError } from '../../src/cli/args.js';

const TABLE: FlagTable = { channel: 'value', version: 'value', wait: 'switch', timeout: 'value', output: 'value' };
const parse = (...argv: string[]) => parseArgs(argv, TABLE, { where: 'kcp module enable' });
const usage = (fn: () => unknown, message: RegExp | string) =>
  assert.throws(fn, (e: unknown) => e instanceof UsageError && !e.message.includes('\n') && (typeof message === 'string' ? e.message === message : message.test(e.message)));

describe('strict argument parsing', () => {
  it('reads --flag value, --flag=value, switches, -o in all its spellings and --', () => {
    const a = parse('r1', 'functions', '--channel', 'fast', '--timeout=5m', '--wait', '-o', 'json');
    assert.deepEqual(a.positionals, ['r1', 'functions']);
    assert.deepEqual(Object.fromEntries(a.flags), { channel: 'fast', timeout: '5m', wait: true, output: 'json' });
    assert.equal(parse('-ojson').flags.get('output'), 'json');
    assert.equal(parse('-o=yaml').flags.get('output'), 'yaml');
    assert.equal(parse('--wait=false').flags.get('wait'), 'false');
    assert.deepEqual(parse('--wait', 'r1').positionals, ['r1'], 'a switch takes no value: the next word stays an argument');
    assert.deepEqual(parse('--', '--channel', 'x').positionals, ['--channel', 'x'], 'everything after -- is an argument');
    assert.deepEqual(parse('--channel', '-1').flags.get('channel'), '-1', 'a negative number is a value');
    assert.equal(parse('-h').flags.get('help'), true);
  });

  it('refuses what it does not know with one line naming the closest flag', () => {
    usage(() => parse('--chanel', 'fast'), 'unknown flag --chanel for kcp module enable: did you mean --channel?');
    usage(() => parse('--wiat'), 'unknown flag --wiat for kcp module enable: did you mean --wait?');
    usage(() => parse('--time', '5m'), 'unknown flag --time for kcp module enable: did you mean --timeout?');
    usage(() => parse('--frobnicate'), 'unknown flag --frobnicate for kcp module enable: see kcp module enable --help');
    usage(() => parse('-x'), /^unknown flag -x for kcp module enable/);
    usage(() => parseArgs(['--x'], {}, { where: 'kcp skr-webhook' }), 'unknown flag --x for kcp skr-webhook: kcp skr-webhook takes no flags');
  });

  it('refuses a missing value, a value for a switch, and a flag given twice', () => {
    usage(() => parse('--channel'), '--channel needs a value');
    usage(() => parse('--channel', '--wait'), '--channel needs a value');
    usage(() => parse('-o'), '-o needs a value');
    usage(() => parse('--wait=soon'), '--wait takes no value (or =true / =false), got "soon"');
    usage(() => parse('--channel', 'a', '--channel=b'), '--channel is given twice');
    assert.equal(parseArgs(['--channel', 'a', '--channel=b'], TABLE, { lastWins: true }).flags.get('channel'), 'b', 'kcp run and kcp up: the last one wins, as with Go flags');
  });

  it('suggests only flags that are close', () => {
    assert.equal(closestFlag('chanel', Object.keys(TABLE)), 'channel');
    assert.equal(closestFlag('out', Object.keys(TABLE)), 'output', 'a prefix');
    assert.equal(closestFlag('zzzzzz', Object.keys(TABLE)), undefined);
  });
});

describe('the kcp binary on bad input', () => {
  const kcp = (...argv: string[]) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kcp-args-'));
    try {
      // No control plane anywhere: input errors must come first, and KUBECONFIG must not leak in.
      return spawnSync(process.execPath, ['dist/src/cli/main.js', ...argv], { encoding: 'utf8', cwd: process.cwd(), env: { ...process.env, KUBECONFIG: '' , HOME: dir } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('exits 2 with one line for a typo, an unknown command, a bad output format and extra arguments', () => {
    const cases: [string[], RegExp][] = [
      [['module', 'enable', 'r1', 'functions', '--chanel', 'fast'], /^kcp: unknown flag --chanel for kcp module enable: did you mean --channel\?\n$/],
      [['runtime', 'create', 'r1', '--provider', 'aws', '--region', 'eu-central-1', '--wiat'], /^kcp: unknown flag --wiat for kcp runtime create: did you mean --wait\?\n$/],
      [['runtime', 'list', '--stat', 'Failed'], /^kcp: unknown flag --stat for kcp runtime list: did you mean --state\?\n$/],
      [['runtme', 'list'], /^kcp: unknown command "runtme": did you mean `kcp runtime`\?\n$/],
      [['status', '-o', 'xml'], /^kcp: unknown output format "xml": use table, wide, json, yaml, name\n$/],
      [['kubeconfig', 'r1', '--pth'], /^kcp: unknown flag --pth for kcp kubeconfig: did you mean --path\?\n$/],
      [['up', '--data-dri', 'x'], /^kcp: unknown flag --data-dri for kcp up: did you mean --data-dir\?\n$/],
      // Flags before the subcommand: still the subcommand's table.
      [['module', '-o', 'name', 'enable', 'r1', 'gateway', '--chanel', 'fast'], /^kcp: unknown flag --chanel for kcp module enable: did you mean --channel\?\n$/],
      [['runtime', '-o', 'name', 'list', '--bogus'], /^kcp: unknown flag --bogus for kcp runtime list/],
      [['runtime', 'lst'], /^kcp: unknown subcommand "lst": did you mean list\? use create, /],
      // Checked before the control plane is asked (there is none here).
      [['runtime', 'update', 'r1'], /^kcp: nothing to update: give at least one of --machine-type/],
      [['runtime', 'update', 'r1', '--channel', 'FAST'], /^kcp: invalid channel "FAST"/],
      [['runtime', 'create', 'r1', '--provider', 'aws', '--region', 'eu-central-1', '--machine-type', 'm5.huge'], /^kcp: unknown aws machine type "m5\.huge"/],
      [['runtime', 'wait', 'r1', '--for', 'readdy'], /^kcp: --for must be ready or deleted, got "readdy"\n$/],
      [['runtime', 'delete', 'r1', '--timeout', '5m'], /^kcp: --timeout goes with --wait/],
      [['module', 'enable', 'r1', 'gateway', '--channel', 'fast', '--version', '1.0.0'], /^kcp: --channel and --version exclude each other/],
      [['version', '-o', 'name'], /^kcp: kcp version prints no objects/],
      [['skr-webhook', 'extra'], /^kcp: kcp skr-webhook takes no arguments or flags; it reads its environment \(see kcp skr-webhook --help\)\n$/],
    ];
    for (const [argv, stderr] of cases) {
      const r = kcp(...argv);
      assert.equal(r.status, 2, `kcp ${argv.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, stderr);
      assert.equal(r.stdout, '');
    }
  });

  it('KUBECONFIG naming no file is an error, not a fall-back to .kcp', () => {
    const r = spawnSync(process.execPath, ['dist/src/cli/main.js', 'runtime', 'list'], { encoding: 'utf8', env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' } });
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^kcp: KUBECONFIG=\/nonexistent\/kubeconfig names no existing file/);
  });

  it('kcp version --client needs no control plane; --help still prints the usage', () => {
    const v = kcp('version', '--client', '-o', 'json');
    assert.equal(v.status, 0, v.stderr);
    assert.match((JSON.parse(v.stdout) as { client: { version: string } }).client.version, /^\d+\.\d+\.\d+/);
    const help = kcp('runtime', 'create', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /kcp runtime update NAME/);
  });
});
