// What `npm run generate` writes: config/crd/*.yaml and docs/api.md, from the schemas in src/api.
import { mkdirSync, readdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allKinds } from './index.js';
import { API_INTRO } from './intro.js';
import { renderApiReference, renderCrds } from './render.js';

/** Everything generated, by path relative to the repository root. */
export function generatedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, text] of renderCrds(allKinds)) files.set(join('config', 'crd', name), text);
  files.set(join('docs', 'api.md'), renderApiReference(allKinds, API_INTRO));
  return files;
}

/** Writes the generated files under `root`, removing CRD files no kind produces any more. */
export function writeGenerated(root: string): number {
  mkdirSync(join(root, 'config', 'crd'), { recursive: true });
  const files = generatedFiles();
  for (const f of readdirSync(join(root, 'config', 'crd'))) {
    if (f.endsWith('.yaml') && !files.has(join('config', 'crd', f))) unlinkSync(join(root, 'config', 'crd', f));
  }
  for (const [path, text] of files) writeFileSync(join(root, path), text);
  return files.size;
}
