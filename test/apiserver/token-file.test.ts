import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { TokenFile } from '../../src/apiserver/auth/token-file.js';

const dirs: string[] = [];
function fresh(): string {
  const d = mkdtempSync(join(os.tmpdir(), 'kcp-tokens-'));
  dirs.push(d);
  return d;
}
const lines = (dir: string) => readFileSync(join(dir, 'tokens.log'), 'utf8').split('\n').filter((l) => l !== '').length;

describe('the API server token file', () => {
  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps tokens across restarts: a change is one appended line, folded into the snapshot at the next start', () => {
    const dir = fresh();
    const a = new TokenFile(dir);
    const admin = a.secrets.adminToken;
    assert.match(admin, /^[0-9a-f]{48}$/);
    assert.equal(JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8')).adminToken, admin, 'the admin token is on disk from the start');
    a.setClusterToken('rt-1', 'tok-1');
    a.setClusterToken('rt-2', 'tok-2');
    a.addExpiring('short', 'rt-1', Date.now() + 60_000);
    assert.equal(lines(dir), 3);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8')).tokens, {}, 'the snapshot is not rewritten per token');
    a.clusterGone('rt-1');
    a.close();

    const b = new TokenFile(dir);
    assert.equal(b.secrets.adminToken, admin);
    assert.deepEqual(b.secrets.tokens, { 'rt-2': 'tok-2' });
    assert.deepEqual(b.secrets.expiring, {}, "a deleted cluster's short-lived tokens go with it");
    assert.equal(lines(dir), 0, 'folded at start');
    assert.deepEqual(JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8')).tokens, { 'rt-2': 'tok-2' });
    for (const f of ['tokens.json', 'tokens.log']) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, `${f} is private`);
    b.close();
  });

  it('folds the log into the snapshot once it outgrows it, and forgets tokens long expired', () => {
    const dir = fresh();
    const t = new TokenFile(dir);
    t.addExpiring('old', 'default', Date.now() - 2 * 3_600_000);
    for (let i = 0; i < 1100; i++) t.addExpiring(`t-${i}`, 'default', Date.now() + 60_000);
    // 1,101 changes and as many entries: not folded yet.
    assert.equal(lines(dir), 1101);
    for (let i = 0; i < 1100; i++) t.setClusterToken('rt', `again-${i}`); // rewrites of one entry
    assert.ok(lines(dir) < 1200, `folded: ${lines(dir)} lines left`);
    const snapshot = JSON.parse(readFileSync(join(dir, 'tokens.json'), 'utf8')) as { expiring: Record<string, unknown> };
    assert.equal(snapshot.expiring.old, undefined, 'the long expired token is forgotten');
    assert.ok(snapshot.expiring['t-1099']);
    t.close();
    const again = new TokenFile(dir);
    assert.equal(again.secrets.tokens.rt, 'again-1099');
    again.close();
  });

  it('counts its tokens as they come and go (a cluster may be called constructor)', () => {
    const dir = fresh();
    const t = new TokenFile(dir);
    for (let i = 0; i < 1000; i++) t.setClusterToken(`rt-${i}`, 'x');
    t.setClusterToken('constructor', 'y');
    for (let i = 0; i < 1000; i++) t.clusterGone(`rt-${i}`);
    // 2,001 changes, 1 token left: folded once the log passed 1,024 lines and the tokens.
    assert.ok(lines(dir) < 1000, `folded: ${lines(dir)} lines left`);
    t.close();
    assert.deepEqual(new TokenFile(dir).secrets.tokens, { constructor: 'y' });
  });

  it('drops a last line torn by a crash, and refuses to start on a damaged line before it', () => {
    const dir = fresh();
    const t = new TokenFile(dir);
    t.setClusterToken('rt-1', 'tok-1');
    t.close();
    appendFileSync(join(dir, 'tokens.log'), '{"op":"cluster","name":"rt-2","tok');
    const u = new TokenFile(dir);
    assert.deepEqual(u.secrets.tokens, { 'rt-1': 'tok-1' });
    u.close();

    writeFileSync(join(dir, 'tokens.log'), 'not json\n{"op":"cluster","name":"rt-3","token":"x"}\n');
    assert.throws(() => new TokenFile(dir), /tokens\.log: line 1 is not a token change/);
  });

  it('without a directory keeps tokens in memory', () => {
    const t = new TokenFile(undefined);
    t.setClusterToken('rt', 'x');
    assert.equal(t.secrets.tokens.rt, 'x');
    assert.match(t.secrets.adminToken, /^[0-9a-f]{48}$/);
  });
});
