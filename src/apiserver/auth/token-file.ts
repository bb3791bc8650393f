// The embedded API server's bearer tokens on disk: each logical cluster's own token and the
// short-lived ones it hands out (a Shoot's adminkubeconfig). A snapshot, `tokens.json` (the format
// this file always had), and the changes since, `tokens.log` (one JSON line each), folded into a new
// snapshot once the log outgrows it. A new token costs one appended line instead of a rewrite of
// every token: at 10,000 clusters the rewrites took half of the landscape's CPU while provisioning.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface TokenSecrets {
  adminToken: string;
  /** Logical cluster -> its own token. */
  tokens: Record<string, string>;
  /** Short-lived tokens: token -> cluster and expiry (epoch milliseconds). */
  expiring?: Record<string, { cluster: string; expiresAt: number }>;
}

type Change = { op: 'cluster'; name: string; token: string } | { op: 'clusterGone'; name: string } | { op: 'expiring'; token: string; cluster: string; expiresAt: number };

/** Short-lived tokens are forgotten this long after they expired. */
const FORGET_AFTER_MS = 3_600_000;
/** The log is folded into the snapshot when it has more lines than this and than the snapshot has entries. */
const MIN_FOLD_LINES = 1024;

export class TokenFile {
  readonly secrets: TokenSecrets = { adminToken: '', tokens: {} };
  private readonly snapshotPath: string | undefined;
  private readonly logPath: string | undefined;
  private logFd: number | undefined;
  private logLines = 0;
  /** Tokens in `secrets` (cluster and short-lived), kept as they change: counting them per change would cost O(n). */
  private entries = 0;

  /** Without a directory the tokens live in memory only. */
  constructor(dir: string | undefined) {
    if (!dir) {
      this.secrets.adminToken = randomBytes(24).toString('hex');
      return;
    }
    mkdirSync(dir, { recursive: true });
    this.snapshotPath = join(dir, 'tokens.json');
    this.logPath = join(dir, 'tokens.log');
    if (existsSync(this.snapshotPath)) Object.assign(this.secrets, JSON.parse(readFileSync(this.snapshotPath, 'utf8')) as TokenSecrets);
    if (existsSync(this.logPath)) this.replay(readFileSync(this.logPath, 'utf8'));
    if (!this.secrets.adminToken) this.secrets.adminToken = randomBytes(24).toString('hex');
    // Start from a fresh snapshot and an empty log (the admin token is on disk from here on).
    this.fold();
  }

  setClusterToken(name: string, token: string): void {
    this.change({ op: 'cluster', name, token });
  }

  clusterGone(name: string): void {
    this.change({ op: 'clusterGone', name });
  }

  addExpiring(token: string, cluster: string, expiresAt: number): void {
    this.change({ op: 'expiring', token, cluster, expiresAt });
  }

  close(): void {
    if (this.logFd !== undefined) closeSync(this.logFd);
    this.logFd = undefined;
  }

  private change(c: Change): void {
    this.apply(c);
    this.append(c);
  }

  private apply(c: Change): void {
    const expiring = (this.secrets.expiring ??= {});
    switch (c.op) {
      case 'cluster':
        if (!Object.hasOwn(this.secrets.tokens, c.name)) this.entries++;
        this.secrets.tokens[c.name] = c.token;
        break;
      case 'clusterGone':
        if (Object.hasOwn(this.secrets.tokens, c.name)) this.entries--;
        delete this.secrets.tokens[c.name];
        for (const [t, x] of Object.entries(expiring)) {
          if (x.cluster !== c.name) continue;
          delete expiring[t];
          this.entries--;
        }
        break;
      case 'expiring':
        if (!Object.hasOwn(expiring, c.token)) this.entries++;
        expiring[c.token] = { cluster: c.cluster, expiresAt: c.expiresAt };
        break;
    }
  }

  private replay(text: string): void {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line === '') return;
      try {
        this.apply(JSON.parse(line) as Change);
      } catch (e) {
        // Only the last line can be torn (a crash while appending it); anything else is damage.
        if (i !== lines.length - 1 || text.endsWith('\n')) throw new Error(`${this.logPath}: line ${i + 1} is not a token change: ${(e as Error).message}`, { cause: e });
      }
    });
  }

  private append(c: Change): void {
    if (!this.logPath) return;
    this.logFd ??= openSync(this.logPath, 'a', 0o600);
    writeSync(this.logFd, `${JSON.stringify(c)}\n`);
    this.logLines++;
    if (this.logLines > MIN_FOLD_LINES && this.logLines > this.entries) this.fold();
  }

  /** Writes the snapshot (long-expired tokens dropped) and empties the log. */
  private fold(): void {
    if (!this.snapshotPath || !this.logPath) return;
    const forgetBefore = Date.now() - FORGET_AFTER_MS;
    for (const [t, e] of Object.entries(this.secrets.expiring ?? {})) if (e.expiresAt < forgetBefore) delete this.secrets.expiring?.[t];
    this.entries = Object.keys(this.secrets.tokens).length + Object.keys(this.secrets.expiring ?? {}).length;
    // Written aside and renamed: a crash leaves the old snapshot or the new one, never half of one.
    // A crash before the log is emptied replays changes the snapshot already has, which changes nothing.
    const next = `${this.snapshotPath}.next`;
    writeFileSync(next, JSON.stringify(this.secrets), { mode: 0o600 });
    renameSync(next, this.snapshotPath);
    this.close();
    writeFileSync(this.logPath, '', { mode: 0o600 });
    this.logLines = 0;
  }
}
