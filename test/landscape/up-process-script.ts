// A parent for the landscape-process test (process.test.ts): starts `kcp up` as a library with the
// landscape in a process of its own, prints one JSON line with both pids, and runs until killed.
import { startUp } from '../../src/up/index.js';
import { silentLogger } from '../../src/runtime/log.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: up-process-script.js DATA-DIR');
const up = await startUp({ dataDir, port: 0, catalogDir: null, landscapeMode: 'process', logger: silentLogger });
process.stdout.write(`${JSON.stringify({ pid: process.pid, landscapePid: up.landscapeInfo.pid })}\n`);
