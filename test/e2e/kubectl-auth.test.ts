// kubectl against the embedded API server: `auth can-i` (also `--list`), `auth whoami`, `--as`,
// `create token` and what the token then is, and each namespace's default ServiceAccount and
// kube-root-ca.crt. kubectl 1.32 sends these bodies as protobuf; Debian's 1.20 has neither
// `auth whoami` (1.27+) nor `create token` (1.24+), which the tests then say instead.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { kubectl, kubectlMinorVersion, kubectlOk } from '../support/kubectl.js';
import { waitFor } from '../support/wait.js';

/** `kubectl auth whoami` output as attribute -> value. */
function attributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.trim().split('\n')) {
    const m = /^(\S+)\s+(.*)$/.exec(line.trim());
    if (m && m[1] !== 'ATTRIBUTE') out[m[1]] = m[2].trim();
  }
  return out;
}

describe('kubectl auth, tokens and namespace defaults', () => {
  let server: RunningApiServer;
  let dir: string;
  let kc: string;
  let minor = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kcp-kubectl-auth-'));
    server = await startApiServer({ port: 0, dataDir: dir });
    kc = join(dir, 'kubeconfig');
    minor = await kubectlMinorVersion(kc);
    await kubectlOk(kc, ['create', '-f', '-'], 'apiVersion: v1\nkind: Namespace\nmetadata: { name: team }\n');
    await server.idle();
  });

  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('auth can-i answers yes for the admin, and --list shows every verb on everything', async () => {
    const create = await kubectl(kc, ['auth', 'can-i', 'create', 'pods']);
    assert.deepEqual([create.code, create.stdout.trim()], [0, 'yes']);
    const secrets = await kubectl(kc, ['auth', 'can-i', 'delete', 'secrets', '-n', 'kube-system']);
    assert.deepEqual([secrets.code, secrets.stdout.trim()], [0, 'yes']);
    const list = (await kubectlOk(kc, ['auth', 'can-i', '--list', '-n', 'team'])).trim().split('\n').map((l) => l.trim().split(/\s+/));
    assert.deepEqual(list[0], ['Resources', 'Non-Resource', 'URLs', 'Resource', 'Names', 'Verbs']);
    assert.deepEqual(list.slice(1), [
      ['*.*', '[]', '[]', '[*]'],
      ['[*]', '[]', '[*]'],
    ]);
  });

  it('auth whoami shows the admin; --as shows the impersonated user', async () => {
    const r = await kubectl(kc, ['auth', 'whoami']);
    if (minor < 27) {
      assert.notEqual(r.code, 0, `kubectl 1.${minor} has no auth whoami`);
      return;
    }
    assert.equal(r.code, 0, r.stderr);
    const me = attributes(r.stdout);
    assert.equal(me.Username, 'admin');
    assert.equal(me.Groups, '[system:masters system:authenticated]');
    assert.match(me.UID, /^[0-9a-f-]{36}$/);
    const bob = attributes(await kubectlOk(kc, ['auth', 'whoami', '--as=bob', '--as-group=devs']));
    assert.deepEqual(bob, { Username: 'bob', Groups: '[devs system:authenticated]' });
    const asSa = await kubectl(kc, ['auth', 'can-i', 'create', 'pods', '--as=system:serviceaccount:team:default']);
    assert.deepEqual([asSa.code, asSa.stdout.trim()], [0, 'yes']);
  });

  it('every namespace has its default ServiceAccount and kube-root-ca.crt, recreated when deleted', async () => {
    const accounts = (await kubectlOk(kc, ['get', 'serviceaccounts', '-A', '-o', 'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}'])).trim().split(' ');
    assert.deepEqual(accounts, ['default/default', 'kube-node-lease/default', 'kube-public/default', 'kube-system/default', 'team/default']);
    const ca = await kubectlOk(kc, ['get', 'configmap', 'kube-root-ca.crt', '-n', 'team', '-o', 'jsonpath={.data.ca\\.crt}']);
    assert.equal(ca, server.caPem);
    const uid = await kubectlOk(kc, ['get', 'sa', 'default', '-n', 'team', '-o', 'jsonpath={.metadata.uid}']);
    await kubectlOk(kc, ['delete', 'sa', 'default', '-n', 'team']);
    await waitFor('the default ServiceAccount back', async () => {
      const again = await kubectl(kc, ['get', 'sa', 'default', '-n', 'team', '-o', 'jsonpath={.metadata.uid}']);
      return again.code === 0 && again.stdout !== uid;
    });
  });

  it('create token default gives a token that is the ServiceAccount', async () => {
    const r = await kubectl(kc, ['create', 'token', 'default', '-n', 'team']);
    if (minor < 24) {
      assert.notEqual(r.code, 0, `kubectl 1.${minor} has no create token`);
      return;
    }
    assert.equal(r.code, 0, r.stderr);
    const token = r.stdout.trim();
    assert.match(token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    const saKc = join(dir, 'sa.kubeconfig');
    writeFileSync(saKc, server.kubeconfigWithToken('default', token), { mode: 0o600 });
    const cms = await kubectlOk(saKc, ['get', 'configmaps', '-n', 'team', '-o', 'name']);
    assert.equal(cms.trim(), 'configmap/kube-root-ca.crt', 'the token opens the cluster');
    if (minor >= 27) {
      const me = attributes(await kubectlOk(saKc, ['auth', 'whoami']));
      assert.equal(me.Username, 'system:serviceaccount:team:default');
      assert.equal(me.Groups, '[system:serviceaccounts system:serviceaccounts:team system:authenticated]');
    }
    const short = await kubectl(kc, ['create', 'token', 'default', '-n', 'team', '--duration=5m']);
    assert.notEqual(short.code, 0);
    assert.match(short.stderr, /spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/);
    const missing = await kubectl(kc, ['create', 'token', 'nobody', '-n', 'team']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /serviceaccounts "nobody" not found/);
    // The ServiceAccount deleted: its token is refused.
    await kubectlOk(kc, ['delete', 'sa', 'default', '-n', 'team']);
    const refused = await kubectl(saKc, ['get', 'configmaps', '-n', 'team']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/);
  });
});
