// Locating and loading the corpus: scenarios, golden transcripts and the list of known deviations.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario, Transcript } from './types.js';

export interface KnownDeviation {
  scenario: string;
  step: string;
  reason: string;
}

/** The repository root: the nearest folder above this module holding package.json (works from src and dist). */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above the conformance harness');
    dir = parent;
  }
  return dir;
}

export const corpusDir = (): string => join(repoRoot(), 'test', 'fixtures', 'kube-conformance');
export const knownDeviationsFile = (): string => join(repoRoot(), 'test', 'conformance', 'known-deviations.json');

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

export function scenarioNames(): string[] {
  return readdirSync(join(corpusDir(), 'scenarios'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

export function loadScenario(name: string): Scenario {
  return readJson<Scenario>(join(corpusDir(), 'scenarios', `${name}.json`));
}

export function loadGolden(name: string): Transcript {
  return readJson<Transcript>(join(corpusDir(), 'golden', `${name}.json`));
}

export function loadKnownDeviations(): KnownDeviation[] {
  const file = knownDeviationsFile();
  return existsSync(file) ? readJson<KnownDeviation[]>(file) : [];
}
