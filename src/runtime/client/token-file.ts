// A bearer token read from a file (a service account's projected token rotates): re-read after a
// minute or after a 401.
import { readFile } from 'node:fs/promises';
import type { AuthProvider } from './config.js';

export function tokenFileAuth(file: string, opts: { maxAgeMs?: number } = {}): AuthProvider {
  const maxAgeMs = opts.maxAgeMs ?? 60_000;
  let cached: { header: string; readAt: number } | undefined;
  return {
    async authorization() {
      if (cached && Date.now() - cached.readAt < maxAgeMs) return cached.header;
      const token = (await readFile(file, 'utf8')).trim();
      cached = { header: `Bearer ${token}`, readAt: Date.now() };
      return cached.header;
    },
    invalidate() {
      cached = undefined;
      return true;
    },
  };
}
