// npm run generate: writes config/crd/*.yaml and docs/api.md from the schemas in src/api.
import { writeGenerated } from '../dist/src/api/generate.js';

const n = writeGenerated(process.cwd());
console.log(`wrote ${n} files (config/crd/*.yaml, docs/api.md)`);
