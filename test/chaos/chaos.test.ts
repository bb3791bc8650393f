// The chaos run at a size that fits CI: 6 runtimes with the demo catalog's 3 modules, `kcp up`
// killed with SIGKILL 5 times (once in each phase: provisioning, module installs, upgrades,
// credential rotation, deletions), restarted each time, then every invariant checked
// (test/chaos/driver.ts). `npm run chaos` runs 200 runtimes and 10 kills.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runChaos } from './driver.js';

test('kcp up killed with SIGKILL in every phase converges with every invariant holding', { timeout: 900_000 }, async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kcp-chaos-'));
  try {
    const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 100_000);
    const report = await runChaos({ dataDir, runtimes: 6, kills: 5, seed, convergeTimeoutMs: 240_000, control: true, log: process.env.TEST_LOG ? (l) => process.stderr.write(`${l}\n`) : undefined });
    assert.deepEqual(report.violations, [], `seed ${seed}`);
    assert.equal(report.kills.length, 5);
    assert.deepEqual([...new Set(report.kills.map((k) => k.phase))], ['provisioning', 'module installs', 'upgrades', 'credential rotation', 'deletions']);
    assert.deepEqual(new Set(report.kills.map((k) => k.target)), new Set(['controllers', 'everything']));
    // The checks covered something: a run that checked nothing would pass anything.
    if (process.env.TEST_LOG) process.stderr.write(`${report.checked.join('\n')}\n`);
    assert.equal(report.checked.length, 5);
    assert.match(report.checked.at(-1) ?? '', /module resources in [1-9]\d* runtimes: [1-9]\d* present as they should be, [1-9]\d* absent/);
    // Control: the same checks find two faults planted after them (so a clean report means something).
    const planted = report.controlViolations ?? [];
    assert.equal(planted.length, 2, planted.join('\n'));
    assert.match(planted[0], /^Shoots .*planted/);
    assert.match(planted[1], /left over \(\w+ was disabled\)$/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
