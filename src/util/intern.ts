// One copy of the strings that recur across many long-lived objects. JSON.parse makes a new string
// for every value it reads, so a fleet's caches held thousands of copies of the same namespace,
// kind, API version, label value and condition message, and the same kubeconfig twice (two
// informers select the same Secrets): at 1,000 runtimes duplicate strings were about 30% of the
// controllers' heap.
//
// The pool has two generations, each bounded in strings and in characters: a string seen in the
// last two generations is shared; one not seen for two generations is let go (the objects that hold
// it keep their copy), so strings that stopped recurring (a rotated kubeconfig, names of deleted
// objects) do not pile up beyond two generations.

export class StringPool {
  private young = new Map<string, string>();
  private old = new Map<string, string>();
  private youngChars = 0;

  constructor(
    private readonly generationSize = 1 << 17,
    private readonly generationChars = 16 << 20,
  ) {}

  /** The pool's copy of `s` (`s` itself when it is new). */
  intern(s: string): string {
    const hit = this.young.get(s);
    if (hit !== undefined) return hit;
    const kept = this.old.get(s) ?? s;
    if (this.young.size >= this.generationSize || this.youngChars >= this.generationChars) {
      this.old = this.young;
      this.young = new Map();
      this.youngChars = 0;
    }
    this.young.set(kept, kept);
    this.youngChars += kept.length;
    return kept;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}

/** Fields whose values are unique per object or per write: sharing them saves nothing. */
const UNIQUE_FIELDS = new Set(['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp', 'lastTransitionTime', 'lastUpdateTime', 'lastHeartbeatTime', 'lastProbeTime', 'time']);

/** Longer strings are left alone (hashing them costs more than sharing saves, and few recur). */
const MAX_LENGTH = 16 * 1024;

/**
 * Replaces, in place, the string values of a JSON-shaped value with the pool's copies (keys are
 * already shared by V8). Frozen objects are left as they are. Returns `value`.
 */
export function internStrings<T>(value: T, pool: StringPool): T {
  internIn(value, pool);
  return value;
}

function internIn(value: unknown, pool: StringPool): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'string') {
        if (v.length <= MAX_LENGTH) value[i] = pool.intern(v);
      } else internIn(v, pool);
    }
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const k in obj) {
    const v = obj[k];
    if (typeof v === 'string') {
      if (v.length <= MAX_LENGTH && !UNIQUE_FIELDS.has(k)) obj[k] = pool.intern(v);
    } else internIn(v, pool);
  }
}

/** The pool shared by the controllers' caches and their own long-lived records. */
export const sharedStrings = new StringPool();
