// The project's version, from its package.json (two folders above dist/src/util or src/util).
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** `0.1.0`; `unknown` when package.json cannot be read (a trimmed image). */
export function projectVersion(): string {
  if (cached === undefined) {
    cached = 'unknown';
    for (const up of ['../../../package.json', '../../package.json']) {
      try {
        const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
        if (pkg.name === 'kyma-control-plane-ts' && pkg.version) {
          cached = pkg.version;
          break;
        }
      } catch {
        // try the next place
      }
    }
  }
  return cached;
}
