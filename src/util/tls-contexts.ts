// One TLS SecureContext per distinct credential set (trusted CAs, certificate, key), shared by every
// agent, client and server that uses the same PEMs. An `https.Agent` given `ca`/`cert`/`key` builds
// a new context for every connection (parsing the CA bundle, the certificate and importing the key
// each time); given a `secureContext` it reuses that one. With thousands of runtimes this is the
// difference between a TLS handshake costing a context build or not.
//
// Entries are reference counted: a context stays while anyone holds a lease on it, and up to
// `maxUnused` contexts nobody holds are kept (least recently released first out), so that a client
// rebuilt with the same credentials (a TTL rebuild, an LRU eviction) finds its context again. A
// changed credential is a different key: it gets a new context, and the old one goes once its last
// holder released it and it fell out of the unused list.
import { createHash } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';

export interface TlsCredentials {
  /** PEM bundle (or list of PEM certificates) of the CAs to trust; the system CAs when absent. */
  ca?: string | string[];
  /** PEM certificate (chain) presented to the peer. */
  cert?: string;
  /** PEM private key of `cert`. */
  key?: string;
}

export interface SecureContextLease {
  readonly context: SecureContext;
  /** The holder no longer needs the context (idempotent). */
  release(): void;
}

export interface SecureContextStats {
  /** Contexts kept (held or unused). */
  contexts: number;
  /** Contexts someone holds a lease on. */
  held: number;
  /** Contexts built so far (createSecureContext calls). */
  created: number;
  /** Leases served from an existing context. */
  reused: number;
}

interface Entry {
  context: SecureContext;
  holders: number;
}

function credentialKey(c: TlsCredentials): string {
  const h = createHash('sha256');
  const ca = c.ca === undefined ? [] : Array.isArray(c.ca) ? c.ca : [c.ca];
  // Lengths first, so that no two different triples hash the same input.
  for (const part of [ca.length === 0 ? undefined : ca.join('\n'), c.cert, c.key]) {
    h.update(part === undefined ? '-1:' : `${part.length}:`);
    if (part !== undefined) h.update(part);
  }
  return h.digest('base64');
}

export class SecureContextCache {
  private readonly entries = new Map<string, Entry>();
  /** Keys of contexts nobody holds, least recently released first. */
  private readonly unused = new Set<string>();
  private created = 0;
  private reused = 0;

  constructor(private readonly maxUnused = 256) {}

  /** The context for these credentials, built on first use; throws what createSecureContext throws. */
  acquire(credentials: TlsCredentials): SecureContextLease {
    const key = credentialKey(credentials);
    let entry = this.entries.get(key);
    if (entry) {
      this.reused++;
      this.unused.delete(key);
    } else {
      entry = { context: createSecureContext({ ca: credentials.ca, cert: credentials.cert, key: credentials.key }), holders: 0 };
      this.created++;
      this.entries.set(key, entry);
    }
    entry.holders++;
    const held = entry;
    let released = false;
    return {
      context: held.context,
      release: () => {
        if (released) return;
        released = true;
        held.holders--;
        if (held.holders === 0 && this.entries.get(key) === held) this.keepUnused(key);
      },
    };
  }

  stats(): SecureContextStats {
    return { contexts: this.entries.size, held: this.entries.size - this.unused.size, created: this.created, reused: this.reused };
  }

  private keepUnused(key: string): void {
    this.unused.add(key);
    for (const oldest of this.unused) {
      if (this.unused.size <= this.maxUnused) break;
      this.unused.delete(oldest);
      this.entries.delete(oldest);
    }
  }
}

/** The process's cache: clients, agents and servers of one process share their contexts through it. */
export const secureContexts = new SecureContextCache();
