// `npm run chaos [-- --runtimes N --kills K --seed S --converge-timeout SECONDS]`: the chaos run of
// test/chaos/driver.ts at full size (defaults 200 runtimes, 10 kills, 1,800 s), with progress lines,
// the kills, the invariants checked and one JSON line. Exits 1 when an invariant did not hold.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runChaos } from './driver.js';

const { values } = parseArgs({ options: { runtimes: { type: 'string', default: '200' }, kills: { type: 'string', default: '10' }, seed: { type: 'string' }, 'converge-timeout': { type: 'string', default: '1800' } } });
const runtimes = Number(values.runtimes);
const kills = Number(values.kills);
const seed = values.seed === undefined ? Date.now() % 100_000 : Number(values.seed);
if (!(runtimes > 0) || !(kills >= 5)) throw new Error('--runtimes must be positive and --kills at least 5 (one per phase)');
const dataDir = mkdtempSync(join(tmpdir(), 'kcp-chaos-'));
const t0 = Date.now();
const stamp = () => `${((Date.now() - t0) / 1000).toFixed(1).padStart(7)} s`;
console.log(`chaos: ${runtimes} runtimes x 3 modules, ${kills} kills, seed ${seed}; ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}`);
try {
  const report = await runChaos({ dataDir, runtimes, kills, seed, convergeTimeoutMs: Number(values['converge-timeout']) * 1000, log: (l) => console.log(`${stamp()}  ${l}`) });
  console.log('kills:');
  for (const k of report.kills) console.log(`  ${k.target.padEnd(11)} ${String(k.afterMs).padStart(5)} ms into ${k.phase}`);
  console.log(`reconverged after the last restart in ${(report.reconvergeMs / 1000).toFixed(1)} s`);
  console.log('checked:');
  for (const c of report.checked) console.log(`  ${c}`);
  console.log(report.violations.length === 0 ? 'every invariant held' : `violations (${report.violations.length}):\n  ${report.violations.join('\n  ')}`);
  console.log(JSON.stringify({ runtimes, kills: report.kills.length, seed, totalSeconds: (Date.now() - t0) / 1000, reconvergeSeconds: report.reconvergeMs / 1000, violations: report.violations.length }));
  process.exitCode = report.violations.length === 0 ? 0 : 1;
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
