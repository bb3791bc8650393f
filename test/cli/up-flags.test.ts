// `kcp up` flags: the controller flags of `kcp run` with a few defaults of its own (text logs for a
// person, loopback ports), one line for every mistake.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { parseUpOptions, UP_FLAGS } from '../../src/cli/up.js';
import { flagTableOf } from '../../src/cli/controller-flags.js';

const parse = (argv: string[]) => parseUpOptions(parseArgs(argv, flagTableOf(UP_FLAGS), { lastWins: true }));

test('kcp up logs text by default, JSON with --log-format json, at the --log-level given', () => {
  const defaults = parse([]);
  assert.equal(defaults.logFormat, 'text');
  assert.equal(defaults.logLevel, 'info');
  assert.equal(defaults.verbose, false);
  assert.equal(defaults.landscapeMode, 'process');
  const json = parse(['--log-format', 'json', '--log-level=debug', '--verbose']);
  assert.deepEqual([json.logFormat, json.logLevel, json.verbose], ['json', 'debug', true]);
});

test('kcp up rejects a bad --log-format with one line', () => {
  assert.throws(
    () => parse(['--log-format=pretty']),
    (e: unknown) => e instanceof UsageError && e.message === '--log-format must be one of json, text, got "pretty"',
  );
  assert.throws(() => parse(['--registry=nexus']), (e: unknown) => e instanceof UsageError && /--registry must be auto/.test(e.message));
});

test('kcp up --recover-store asks the API server to start on a damaged store', () => {
  assert.equal(parse([]).recoverStore, false);
  assert.equal(parse(['--recover-store']).recoverStore, true);
});
