// Kubeconfig loading, exec credential plugins, in-cluster config and client-certificate TLS.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import yaml from 'js-yaml';
import { createCA, createClientCert, createServingCert } from '../../src/apiserver/pki.js';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import {
  createClient,
  inClusterConfig,
  isTlsError,
  isUnauthorized,
  isUnreachable,
  loadKubeconfig,
  loadKubeconfigFile,
} from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

interface KubeconfigParts {
  server: string;
  cluster?: Record<string, unknown>;
  user: Record<string, unknown>;
  namespace?: string;
}

function kubeconfig(p: KubeconfigParts): string {
  return yaml.dump({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'main', cluster: { server: p.server, ...p.cluster } },
      { name: 'other', cluster: { server: 'https://other.example.com:6443', 'insecure-skip-tls-verify': true } },
    ],
    users: [
      { name: 'main-user', user: p.user },
      { name: 'other-user', user: { token: 'other-token' } },
    ],
    contexts: [
      { name: 'main', context: { cluster: 'main', user: 'main-user', namespace: p.namespace } },
      { name: 'other', context: { cluster: 'other', user: 'other-user' } },
    ],
    'current-context': 'main',
  });
}

describe('client configuration', () => {
  let server: RunningApiServer;
  let token: string;
  let url: string;
  let dir: string;

  before(async () => {
    server = await startApiServer({ port: 0 });
    const access = await server.createCluster('configured');
    token = access.token;
    url = access.url;
    dir = mkdtempSync(path.join(tmpdir(), 'client-config-'));
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads the current or a named context', async () => {
    const text = kubeconfig({ server: url, cluster: { 'certificate-authority-data': b64(server.caPem) }, user: { token }, namespace: 'team-a' });
    const current = loadKubeconfig(text);
    assert.equal(current.name, 'main');
    assert.equal(current.server, url);
    assert.equal(current.tls.ca, server.caPem);
    assert.equal(current.namespace, 'team-a');
    const other = loadKubeconfig(text, { context: 'other' });
    assert.equal(other.server, 'https://other.example.com:6443');
    assert.equal(other.tls.insecureSkipTlsVerify, true);
    assert.equal(await other.auth?.authorization(), 'Bearer other-token');
    assert.throws(() => loadKubeconfig(text, { context: 'missing' }), /context missing not found/);
    const c = createClient(current, { retries: 0 });
    assert.ok((await c.list(NAMESPACE)).items.length > 0);
    c.close();
  });

  it('reads CA and token from files relative to the kubeconfig', async () => {
    writeFileSync(path.join(dir, 'ca.pem'), server.caPem);
    writeFileSync(path.join(dir, 'token'), `${token}\n`);
    const file = path.join(dir, 'files.kubeconfig');
    writeFileSync(file, kubeconfig({ server: url, cluster: { 'certificate-authority': 'ca.pem' }, user: { tokenFile: 'token' } }));
    const c = createClient(loadKubeconfigFile(file), { retries: 0 });
    assert.ok((await c.get(NAMESPACE, { name: 'default' })).metadata.uid);
    c.close();
  });

  it('refuses a server whose certificate it cannot verify, as a TLS error', async () => {
    const other = await createCA('someone-else');
    const c = createClient(loadKubeconfig(kubeconfig({ server: url, cluster: { 'certificate-authority-data': b64(other.certPem) }, user: { token } })), { retries: 0 });
    await assert.rejects(c.list(NAMESPACE), (e) => isUnreachable(e) && isTlsError(e));
    c.close();
    const insecure = createClient(loadKubeconfig(kubeconfig({ server: url, cluster: { 'insecure-skip-tls-verify': true }, user: { token } })), { retries: 0 });
    assert.ok((await insecure.list(NAMESPACE)).items.length > 0);
    insecure.close();
  });

  describe('exec credential plugin', () => {
    // Prints the wrong token on its first run and the right one afterwards; counts its runs.
    const script = () => {
      const file = path.join(dir, 'credential.mjs');
      writeFileSync(
        file,
        `import { appendFileSync, readFileSync } from 'node:fs';
const [countFile, goodToken, apiVersion, expiresInSeconds] = process.argv.slice(2);
appendFileSync(countFile, 'x');
const runs = readFileSync(countFile, 'utf8').length;
if (JSON.parse(process.env.KUBERNETES_EXEC_INFO).kind !== 'ExecCredential') process.exit(3);
const token = runs === 1 && process.env.FIRST_RUN_WRONG === 'yes' ? 'stale-token' : goodToken;
const expirationTimestamp = new Date(Date.now() + Number(expiresInSeconds) * 1000).toISOString();
console.log(JSON.stringify({ apiVersion, kind: 'ExecCredential', status: { token, expirationTimestamp } }));
`,
      );
      return file;
    };
    const runs = (countFile: string) => readFileSync(countFile, 'utf8').length;

    for (const apiVersion of ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']) {
      it(`runs the command once and caches the token (${apiVersion})`, async () => {
        const countFile = path.join(dir, `runs-${apiVersion.replace(/\W/g, '-')}`);
        writeFileSync(countFile, '');
        const exec = { apiVersion, command: process.execPath, args: [script(), countFile, token, apiVersion, '3600'], env: [{ name: 'FIRST_RUN_WRONG', value: 'no' }] };
        const c = createClient(loadKubeconfig(kubeconfig({ server: url, cluster: { 'certificate-authority-data': b64(server.caPem) }, user: { exec } })), { retries: 0 });
        await Promise.all([c.list(NAMESPACE), c.get(NAMESPACE, { name: 'default' }), c.get(NAMESPACE, { name: 'kube-system' })]);
        assert.equal(runs(countFile), 1);
        c.close();
      });
    }

    it('runs the command again after a 401', async () => {
      const countFile = path.join(dir, 'runs-401');
      writeFileSync(countFile, '');
      const apiVersion = 'client.authentication.k8s.io/v1';
      const exec = { apiVersion, command: process.execPath, args: [script(), countFile, token, apiVersion, '3600'], env: [{ name: 'FIRST_RUN_WRONG', value: 'yes' }] };
      const c = createClient(loadKubeconfig(kubeconfig({ server: url, cluster: { 'certificate-authority-data': b64(server.caPem) }, user: { exec } })), { retries: 0 });
      assert.ok((await c.list(NAMESPACE)).items.length > 0);
      assert.equal(runs(countFile), 2, 'a second run after the stale token was refused');
      await c.get(NAMESPACE, { name: 'default' });
      assert.equal(runs(countFile), 2);
      c.close();
    });

    it('runs the command again once the token expired', async () => {
      const countFile = path.join(dir, 'runs-expired');
      writeFileSync(countFile, '');
      const apiVersion = 'client.authentication.k8s.io/v1beta1';
      const exec = { apiVersion, command: process.execPath, args: [script(), countFile, token, apiVersion, '-10'] };
      const c = createClient(loadKubeconfig(kubeconfig({ server: url, cluster: { 'certificate-authority-data': b64(server.caPem) }, user: { exec } })), { retries: 0 });
      await c.list(NAMESPACE);
      await c.get(NAMESPACE, { name: 'default' });
      assert.ok(runs(countFile) >= 2, `ran for each request (${runs(countFile)})`);
      c.close();
    });

    it('reports a failing command as Unauthorized', async () => {
      const exec = { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', 'process.exit(1)'], installHint: 'install the plugin' };
      const c = createClient(loadKubeconfig(kubeconfig({ server: url, cluster: { 'certificate-authority-data': b64(server.caPem) }, user: { exec } })), { retries: 0 });
      await assert.rejects(c.list(NAMESPACE), (e) => isUnauthorized(e) && /install the plugin/.test((e as Error).message));
      c.close();
    });
  });

  it('uses the in-cluster service account', async () => {
    const sa = mkdtempSync(path.join(dir, 'sa-'));
    writeFileSync(path.join(sa, 'token'), server.adminToken);
    writeFileSync(path.join(sa, 'ca.crt'), server.caPem);
    writeFileSync(path.join(sa, 'namespace'), 'kube-system\n');
    const port = new URL(server.url).port;
    const config = inClusterConfig({ serviceAccountDir: sa, env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: port } });
    assert.equal(config.server, `https://127.0.0.1:${port}`);
    assert.equal(config.namespace, 'kube-system');
    const c = createClient(config, { retries: 0 });
    assert.ok((await c.get(NAMESPACE, { name: 'kube-system' })).metadata.uid);
    c.close();
    assert.throws(() => inClusterConfig({ serviceAccountDir: sa, env: {} }), /KUBERNETES_SERVICE_HOST/);
  });

  it('authenticates with a client certificate', async () => {
    const ca = await createCA('test-ca');
    const serving = await createServingCert(ca, { commonName: 'localhost', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const clientCert = await createClientCert(ca, { commonName: 'alice', organizations: ['team'] });
    const tlsServer = https.createServer({ ca: ca.certPem, cert: serving.certPem, key: serving.keyPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.setHeader('Content-Type', 'application/json');
      if (req.url === '/api/v1') {
        res.end(JSON.stringify({ kind: 'APIResourceList', groupVersion: 'v1', resources: [{ name: 'configmaps', kind: 'ConfigMap', namespaced: true, verbs: ['get'] }] }));
        return;
      }
      res.end(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'whoami', namespace: 'default' }, data: { user: peer.subject.CN } }));
    });
    await new Promise<void>((r) => tlsServer.listen(0, '127.0.0.1', r));
    const tlsUrl = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
    try {
      writeFileSync(path.join(dir, 'alice.crt'), clientCert.certPem);
      writeFileSync(path.join(dir, 'alice.key'), clientCert.keyPem);
      const file = path.join(dir, 'cert.kubeconfig');
      writeFileSync(file, kubeconfig({ server: tlsUrl, cluster: { 'certificate-authority-data': b64(ca.certPem) }, user: { 'client-certificate': 'alice.crt', 'client-key-data': b64(clientCert.keyPem) } }));
      const c = createClient(loadKubeconfigFile(file), { retries: 0 });
      const cm = await c.get<KubeObject & { data: { user: string } }>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'whoami' });
      assert.equal(cm.data.user, 'alice');
      c.close();
      const anonymous = createClient(loadKubeconfig(kubeconfig({ server: tlsUrl, cluster: { 'certificate-authority-data': b64(ca.certPem) }, user: {} })), { retries: 0 });
      await assert.rejects(anonymous.get({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default', name: 'whoami' }), (e) => isUnreachable(e));
      anonymous.close();
    } finally {
      tlsServer.closeAllConnections();
      await new Promise((r) => tlsServer.close(r));
    }
  });
});
