// Content-addressed cache of parsed manifests: bounded by entries and by the bytes the YAML had,
// least recently used out first. Digests never change meaning, so entries never go stale.
import type { KubeObject } from '../../kube/object.js';

interface Entry {
  objects: KubeObject[];
  digest: string;
  bytes: number;
}

export interface CacheLimits {
  maxEntries: number;
  maxBytes: number;
}

export class ManifestCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly limits: CacheLimits) {}

  /** A deep copy, so callers may change the objects they get. */
  get(key: string): { objects: KubeObject[]; digest: string } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    this.entries.set(key, e);
    return { objects: structuredClone(e.objects), digest: e.digest };
  }

  set(key: string, value: { objects: KubeObject[]; digest: string }, bytes: number): void {
    if (bytes > this.limits.maxBytes || this.limits.maxEntries <= 0) return;
    this.delete(key);
    this.entries.set(key, { objects: structuredClone(value.objects), digest: value.digest, bytes });
    this.bytes += bytes;
    for (const [k] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.delete(k);
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  private delete(key: string): void {
    const e = this.entries.get(key);
    if (!e) return;
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }
}
