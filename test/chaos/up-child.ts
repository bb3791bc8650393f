// The control plane the chaos driver kills: `kcp up` as a library (the landscape in a process of its
// own, the demo catalog, fast simulated durations and controllers), on a data dir that outlives it.
// Prints one JSON line once it is up, then runs until it is killed.
import { startUp } from '../../src/up/index.js';
import { fastUpOptions } from '../support/fast-landscape.js';

const dataDir = process.argv[2];
if (!dataDir) throw new Error('usage: up-child.js DATA-DIR');
const up = await startUp({ ...fastUpOptions(dataDir), landscapeMode: 'process' });
const info = up.landscapeInfo;
process.stdout.write(`${JSON.stringify({ pid: process.pid, landscapePid: info.pid, url: info.url, files: info.files, projectNamespace: info.projectNamespace })}\n`);
// A landscape that dies on its own (not killed with this process) ends this one too.
up.landscapeDone.catch(() => process.exit(3));
