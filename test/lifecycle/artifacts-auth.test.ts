// Where module artifacts come from besides an open registry: credentials from dockerconfigjson
// Secrets, Basic and Bearer-token registries, and https links signed by a private CA.
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createCA, createServingCert } from '../../src/apiserver/pki.js';
import { credentialsFromSecret, CredentialsError } from '../../src/lifecycle/artifacts/credentials.js';
import { sha256Digest } from '../../src/lifecycle/artifacts/digest.js';
import { OciArtifactFetcher } from '../../src/lifecycle/artifacts/fetcher.js';
import { readModuleDir } from '../../src/lifecycle/artifacts/module-dir.js';
import { packageModule, pushModule } from '../../src/lifecycle/artifacts/push.js';
import { ArtifactError } from '../../src/lifecycle/artifacts/types.js';
import type { KubeObject } from '../../src/kube/object.js';
import { startRegistry, startRegistryProxy, type TestRegistry, writeSampleModule } from '../support/registry.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

function dockerConfigSecret(auths: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'registry-credentials', namespace: 'kcp-system' },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': b64(JSON.stringify({ auths })) },
  };
}

function reason(r: ArtifactError['reason']) {
  return (e: unknown) => e instanceof ArtifactError && e.reason === r;
}

function listen(server: http.Server | https.Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

function close(server: http.Server | https.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

describe('dockerconfigjson credentials', () => {
  it('reads base64 auth, username/password and URL-style keys for the right registry only', () => {
    const secret = dockerConfigSecret({
      'registry.example.com:5000': { auth: b64('robot:s3cr:et') },
      'https://other.example.com/v1/': { username: 'alice', password: 'pw' },
    });
    assert.deepEqual(credentialsFromSecret(secret, 'registry.example.com:5000'), { username: 'robot', password: 's3cr:et' });
    assert.deepEqual(credentialsFromSecret(secret, 'other.example.com'), { username: 'alice', password: 'pw' });
    assert.equal(credentialsFromSecret(secret, 'registry.example.com'), undefined);
  });

  it('rejects Secrets of another type and malformed entries with a message naming the Secret', () => {
    assert.throws(() => credentialsFromSecret({ ...dockerConfigSecret({}), type: 'Opaque' }, 'r.example.com'), (e: unknown) => e instanceof CredentialsError && e.message.includes('kcp-system/registry-credentials'));
    assert.throws(() => credentialsFromSecret(dockerConfigSecret({ 'r.example.com': { auth: b64('no-colon') } }), 'r.example.com'), CredentialsError);
    assert.throws(() => credentialsFromSecret({ ...dockerConfigSecret({}), data: { '.dockerconfigjson': b64('not json') } }, 'r.example.com'), CredentialsError);
  });
});

describe('authenticated registries', () => {
  let registry: TestRegistry;
  let link: string;
  before(async () => {
    registry = await startRegistry();
    const mod = writeSampleModule({ name: 'private-module' });
    try {
      link = (await pushModule(packageModule(readModuleDir(mod.dir)), '1.0.0', { registry: registry.host, repository: 'kyma-modules/private-module', plainHttp: true })).link;
    } finally {
      mod.remove();
    }
  });
  after(async () => {
    await registry?.stop();
  });

  it('a Basic-auth registry is pulled with the credentials of a dockerconfigjson Secret and refused without', async () => {
    const proxy = await startRegistryProxy(registry, { basicAuth: { username: 'robot', password: 'pa55' } });
    try {
      const viaProxy = link.replace(registry.host, proxy.host);
      const fetcher = new OciArtifactFetcher();
      await assert.rejects(fetcher.fetchManifest(viaProxy), reason('Unauthorized'));
      await assert.rejects(fetcher.fetchManifest(viaProxy, { credentials: { username: 'robot', password: 'wrong' } }), reason('Unauthorized'));
      const credentials = credentialsFromSecret(dockerConfigSecret({ [proxy.host]: { auth: b64('robot:pa55') } }), proxy.host);
      assert.ok(credentials);
      assert.equal((await fetcher.fetchManifest(viaProxy, { credentials })).objects.length, 3);
    } finally {
      await proxy.stop();
    }
  });

  it('a registry asking for a bearer token gets one from its realm, with the credentials, once per scope', async () => {
    const tokenRequests: string[] = [];
    const tokenServer = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      tokenRequests.push(`${url.searchParams.get('service') ?? ''} ${url.searchParams.getAll('scope').join(' ')}`);
      if (req.headers.authorization !== `Basic ${b64('robot:pa55')}`) {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'opaque-token', expires_in: 300 }));
    });
    const tokenPort = await listen(tokenServer);
    const guarded = await startRegistry({ sillyAuth: { tokenRealm: `http://127.0.0.1:${tokenPort}/token`, service: 'test-registry' } });
    try {
      const credentials = { username: 'robot', password: 'pa55' };
      const mod = writeSampleModule({ name: 'token-module', version: '2.0.0' });
      let pushed;
      try {
        pushed = await pushModule(packageModule(readModuleDir(mod.dir)), '2.0.0', { registry: guarded.host, repository: 'kyma-modules/token-module', plainHttp: true, credentials });
      } finally {
        mod.remove();
      }
      assert.ok(tokenRequests.some((r) => r.startsWith('test-registry ') && r.includes('repository:kyma-modules/token-module:pull,push')), tokenRequests.join('\n'));

      const fetcher = new OciArtifactFetcher();
      await assert.rejects(fetcher.fetchManifest(pushed.link), reason('Unauthorized'));
      tokenRequests.length = 0;
      assert.equal((await fetcher.fetchManifest(pushed.link, { credentials })).objects.length, 3);
      assert.equal((await fetcher.fetchManifest(`oci://${guarded.host}/kyma-modules/token-module:2.0.0`, { credentials })).objects.length, 3);
      assert.deepEqual(tokenRequests, ['test-registry repository:kyma-modules/token-module:pull'], 'the token is reused for the same scope');
    } finally {
      await guarded.stop();
      await close(tokenServer);
    }
  });
});

describe('https links', () => {
  let server: https.Server;
  let caPem: string;
  let base: string;
  const body = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-https\n  namespace: kyma-system\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: extra\n';
  before(async () => {
    const ca = await createCA('artifacts-test-ca');
    const cert = await createServingCert(ca, { commonName: '127.0.0.1', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    caPem = ca.certPem;
    server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      if (req.url === '/manifest.yaml') res.writeHead(200, { 'content-type': 'application/yaml' }).end(body);
      else res.writeHead(404).end();
    });
    base = `https://127.0.0.1:${await listen(server)}`;
  });
  after(async () => {
    if (server) await close(server);
  });

  it('an https link is fetched with a private CA and its digest is the sha256 of the bytes', async () => {
    const fetched = await new OciArtifactFetcher({ caPem }).fetchManifest(`${base}/manifest.yaml`);
    assert.equal(fetched.digest, sha256Digest(Buffer.from(body)));
    assert.deepEqual(
      fetched.objects.map((o) => `${o.kind}/${o.metadata.name ?? ''}`),
      ['ConfigMap/from-https', 'Namespace/extra'],
    );
    await assert.rejects(new OciArtifactFetcher({ caPem }).fetchManifest(`${base}/missing.yaml`), reason('NotFound'));
  });

  it('an https link signed by an unknown CA is Unreachable', async () => {
    await assert.rejects(new OciArtifactFetcher().fetchManifest(`${base}/manifest.yaml`), reason('Unreachable'));
  });
});
