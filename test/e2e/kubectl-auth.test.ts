// kubectl against the embedded API server: `auth can-i` (also `--list`), `auth whoami`, `--as`,
// `create token` and what the token then is, and each namespace's default ServiceAccount and
// kube-root-ca.crt. kubectl 1.32 sends these bodies as protobuf; Debian's 1.20 has neither
// `auth whoami` (1.27+) nor `create token` (1.24+): with it, the tests check that it says so and
// send the same SelfSubjectReview and TokenRequest through `kubectl create --raw`.
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

interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
}

const SELF_SUBJECT_REVIEW = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });

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

  /** Who the server says the caller is: `auth whoami` (1.27+), or its SelfSubjectReview sent with `create --raw`, shown as whoami shows it. */
  const whoami = async (kubeconfig: string, flags: string[] = []): Promise<Record<string, string>> => {
    if (minor >= 27) return attributes(await kubectlOk(kubeconfig, ['auth', 'whoami', ...flags]));
    const review = JSON.parse(await kubectlOk(kubeconfig, ['create', '--raw', '/apis/authentication.k8s.io/v1/selfsubjectreviews', '-f', '-', ...flags], SELF_SUBJECT_REVIEW)) as { kind: string; status: { userInfo: UserInfo } };
    assert.equal(review.kind, 'SelfSubjectReview');
    const u = review.status.userInfo;
    return { Username: u.username, ...(u.uid === undefined ? {} : { UID: u.uid }), Groups: `[${u.groups.join(' ')}]` };
  };

  /** A token for a ServiceAccount: `create token` (1.24+), or its TokenRequest sent with `create --raw`; stdout is the token either way. */
  const createToken = async (name: string, namespace: string, expirationSeconds?: number) => {
    if (minor >= 24) return kubectl(kc, ['create', 'token', name, '-n', namespace, ...(expirationSeconds === undefined ? [] : [`--duration=${expirationSeconds}s`])]);
    const request = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: expirationSeconds === undefined ? {} : { expirationSeconds } };
    const r = await kubectl(kc, ['create', '--raw', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, '-f', '-'], JSON.stringify(request));
    if (r.code !== 0) return r;
    const answer = JSON.parse(r.stdout) as { kind: string; status: { token: string } };
    assert.equal(answer.kind, 'TokenRequest');
    return { ...r, stdout: `${answer.status.token}\n` };
  };

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
    if (minor < 27) {
      const r = await kubectl(kc, ['auth', 'whoami']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /^error: unknown command "whoami"/m, `kubectl 1.${minor} has no auth whoami`);
    }
    const me = await whoami(kc);
    assert.equal(me.Username, 'admin');
    assert.equal(me.Groups, '[system:masters system:authenticated]');
    assert.match(me.UID, /^[0-9a-f-]{36}$/);
    const bob = await whoami(kc, ['--as=bob', '--as-group=devs']);
    assert.deepEqual(bob, { Username: 'bob', Groups: '[devs system:authenticated]' });
    // A ServiceAccount may do only what bindings grant it: nothing here until one names it.
    const canSa = () => kubectl(kc, ['auth', 'can-i', 'create', 'pods', '-n', 'team', '--as=system:serviceaccount:team:default']);
    const before = await canSa();
    assert.deepEqual([before.code, before.stdout.trim()], [1, 'no']);
    await kubectlOk(kc, ['create', 'rolebinding', 'sa-edit', '--clusterrole=edit', '--serviceaccount=team:default', '-n', 'team']);
    const after = await canSa();
    assert.deepEqual([after.code, after.stdout.trim()], [0, 'yes']);
    await kubectlOk(kc, ['delete', 'rolebinding', 'sa-edit', '-n', 'team']);
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
    if (minor < 24) {
      const old = await kubectl(kc, ['create', 'token', 'default', '-n', 'team']);
      assert.notEqual(old.code, 0);
      assert.match(old.stderr, /^error: unknown command "token default"/m, `kubectl 1.${minor} has no create token`);
    }
    const r = await createToken('default', 'team');
    assert.equal(r.code, 0, r.stderr);
    const token = r.stdout.trim();
    assert.match(token, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    const saKc = join(dir, 'sa.kubeconfig');
    writeFileSync(saKc, server.kubeconfigWithToken('default', token), { mode: 0o600 });
    const unbound = await kubectl(saKc, ['get', 'configmaps', '-n', 'team', '-o', 'name']);
    assert.notEqual(unbound.code, 0);
    assert.match(unbound.stderr, /Error from server \(Forbidden\): configmaps is forbidden: User "system:serviceaccount:team:default" cannot list resource "configmaps" in API group "" in the namespace "team"/);
    await kubectlOk(kc, ['create', 'rolebinding', 'sa-view', '--clusterrole=view', '--serviceaccount=team:default', '-n', 'team']);
    const cms = await kubectlOk(saKc, ['get', 'configmaps', '-n', 'team', '-o', 'name']);
    assert.equal(cms.trim(), 'configmap/kube-root-ca.crt', 'the token opens the cluster, with what the binding grants');
    const me = await whoami(saKc);
    assert.equal(me.Username, 'system:serviceaccount:team:default');
    assert.equal(me.Groups, '[system:serviceaccounts system:serviceaccounts:team system:authenticated]');
    const short = await createToken('default', 'team', 300);
    assert.notEqual(short.code, 0);
    assert.match(short.stderr, /spec\.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes/);
    const missing = await createToken('nobody', 'team');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /serviceaccounts "nobody" not found/);
    // The ServiceAccount deleted: its token is refused.
    await kubectlOk(kc, ['delete', 'sa', 'default', '-n', 'team']);
    const refused = await kubectl(saKc, ['get', 'configmaps', '-n', 'team']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/);
  });
});
