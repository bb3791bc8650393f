// Runs every compiled test file (dist/test/**/*.test.js) with Node's built-in test runner.
// Node 20 does not expand globs given to `node --test`, so the files are listed here. Only
// dist/test is searched: tests live under test/, and a dist/ left over from an older layout must
// not run stale copies.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = collect('dist/test', []).sort();
if (filter.length > 0) files = files.filter((f) => filter.some((p) => f.includes(p)));
if (files.length === 0) {
  console.error('no test files found under dist/test (did the build run?)');
  process.exit(1);
}
const args = ['--test', '--test-concurrency=2', ...files];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
