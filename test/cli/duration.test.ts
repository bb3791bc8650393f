// The one duration grammar of the kcp flags (src/cli/duration.ts): `kcp run`'s duration flags and
// `--timeout` of `kcp runtime` and `kcp module`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { parseDuration, timeoutFlag } from '../../src/cli/duration.js';

const timeout = (value: string) => timeoutFlag(parseArgs(['--timeout', value]), 42);

describe('durations', () => {
  it('reads Go-style durations', () => {
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('5m'), 300_000);
    assert.equal(parseDuration('1h30m'), 5_400_000);
    assert.equal(parseDuration('1.5h'), 5_400_000);
    assert.equal(parseDuration('500ms'), 500);
    assert.equal(parseDuration('0'), 0);
  });

  it('rejects what is not a duration', () => {
    for (const bad of ['', 'soon', '5', '5 m', '-5m', '1d', 'm5', '1h30', '.5s']) assert.equal(parseDuration(bad), undefined, bad);
  });

  it('--timeout takes durations, and whole seconds as it always did', () => {
    assert.equal(timeout('90s'), 90_000);
    assert.equal(timeout('5m'), 300_000);
    assert.equal(timeout('1h30m'), 5_400_000);
    assert.equal(timeout('600'), 600_000);
    assert.equal(timeoutFlag(parseArgs([]), 42), 42);
  });

  it('a bad --timeout is one line naming the flag and the value', () => {
    for (const bad of ['soon', '0', '0s', '-1m', '1.5']) {
      assert.throws(
        () => timeout(bad),
        (e: unknown) => e instanceof UsageError && !e.message.includes('\n') && e.message === `--timeout must be a positive duration such as 90s, 5m or 1h30m (or whole seconds), got ${JSON.stringify(bad)}`,
        bad,
      );
    }
  });
});
