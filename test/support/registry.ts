// A real OCI registry for tests: Debian's `docker-registry` (CNCF distribution 2.x) on 127.0.0.1 with
// a free port and a temporary storage directory. When the binary is missing the tests fail with a
// message saying how to install it; they do not skip.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, killAndWait, probeHttp } from '../../src/landscape/registry.js';
import { spawnBoundToThisProcess } from '../../src/util/bound-child.js';
import { sleep } from '../../src/util/sleep.js';

export const REGISTRY_BINARY = process.env.DOCKER_REGISTRY_BIN ?? '/usr/bin/docker-registry';

export interface TestRegistry {
  /** `127.0.0.1:<port>`, as written in `oci://` links. */
  host: string;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /**
   * Turns on the registry's `silly` auth: requests without an Authorization header get
   * `401 WWW-Authenticate: Bearer realm=<tokenRealm>,service=<service>,scope=...`; any header passes.
   * Enough to drive the bearer-token challenge flow against the real registry.
   */
  sillyAuth?: { tokenRealm: string; service: string };
  /** Turns on the registry's htpasswd auth (Basic, bcrypt hashes) with these users. */
  htpasswd?: HtpasswdUser[];
}

export interface HtpasswdUser {
  username: string;
  password: string;
  /** bcrypt hash of `password`, as the registry's htpasswd file holds it. */
  bcrypt: string;
}

/**
 * A user for htpasswd registries. The hash was made once with cost 4 (the cheapest bcrypt, so that the
 * registry's check of every request stays fast): Node has no bcrypt, and the registry needs one.
 */
export const REGISTRY_PULLER: HtpasswdUser = { username: 'puller', password: 'pull-s3cret', bcrypt: '$2b$04$cClzIvKl3E2zj7HezVoq2ORw5ZSdoHR0K4.DZfaZ/sURKsv3nJL3O' };

export async function startRegistry(opts: RegistryOptions = {}): Promise<TestRegistry> {
  if (!existsSync(REGISTRY_BINARY)) {
    throw new Error(`${REGISTRY_BINARY} is missing: these tests need a real OCI registry. Install it with \`apt-get install -y docker-registry\` (or set DOCKER_REGISTRY_BIN).`);
  }
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(await freePort(), opts);
    } catch (e) {
      lastError = e; // most likely the free port was taken in between; try another one
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

async function startOnce(port: number, opts: RegistryOptions): Promise<TestRegistry> {
  const dir = mkdtempSync(path.join(tmpdir(), 'kcp-registry-'));
  let auth = opts.sillyAuth ? `auth:\n  silly:\n    realm: ${opts.sillyAuth.tokenRealm}\n    service: ${opts.sillyAuth.service}\n` : '';
  if (opts.htpasswd) {
    const file = path.join(dir, 'htpasswd');
    writeFileSync(file, opts.htpasswd.map((u) => `${u.username}:${u.bcrypt}\n`).join(''));
    auth = `auth:\n  htpasswd:\n    realm: kcp-test-registry\n    path: ${file}\n`;
  }
  const config = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${path.join(dir, 'data')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    '  secret: kcp-test-registry',
    auth,
  ].join('\n');
  const configPath = path.join(dir, 'config.yml');
  writeFileSync(configPath, config);
  // Bound to this process: a test run that is killed leaves no registry behind.
  const { child } = spawnBoundToThisProcess(REGISTRY_BINARY, ['serve', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr = (stderr + c).slice(-4000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await killAndWait(child, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`docker-registry exited with code ${child.exitCode}: ${stderr.trim()}`);
    }
    const status = await probeHttp(`${url}/v2/`);
    if (status === 200 || status === 401) return { host: `127.0.0.1:${port}`, url, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`docker-registry did not answer on ${url}/v2/ within 20 s: ${stderr.trim()}`);
    }
    await sleep(50);
  }
}

export interface RegistryProxyOptions {
  /** Answer 401 `WWW-Authenticate: Basic` unless these credentials come along. */
  basicAuth?: { username: string; password: string };
}

/** An HTTP proxy in front of a registry that counts requests and can tamper with blob downloads. */
export interface RegistryProxy {
  host: string;
  url: string;
  /** Requests seen, as `METHOD /path`. */
  requests: string[];
  /** When true, the bodies of blob GETs are altered (one byte flipped). */
  tamperBlobs: boolean;
  /** When true, the bodies of manifest GETs are altered (a space appended). */
  tamperManifests: boolean;
  stop(): Promise<void>;
}

export async function startRegistryProxy(target: TestRegistry, opts: RegistryProxyOptions = {}): Promise<RegistryProxy> {
  const targetUrl = new URL(target.url);
  const expectedAuth = opts.basicAuth ? `Basic ${Buffer.from(`${opts.basicAuth.username}:${opts.basicAuth.password}`).toString('base64')}` : undefined;
  const state = { requests: [] as string[], tamperBlobs: false, tamperManifests: false };
  const server = http.createServer((req, res) => {
    const method = req.method ?? 'GET';
    const reqPath = req.url ?? '/';
    state.requests.push(`${method} ${reqPath.split('?')[0]}`);
    if (expectedAuth && req.headers.authorization !== expectedAuth) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="test-registry"', 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors: [{ code: 'UNAUTHORIZED', message: 'authentication required' }] }));
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = { ...req.headers };
      delete headers.authorization;
      const upstream = http.request({ host: targetUrl.hostname, port: targetUrl.port, method, path: reqPath, headers }, (up) => {
        const body: Buffer[] = [];
        up.on('data', (c: Buffer) => body.push(c));
        up.on('end', () => {
          let out = Buffer.concat(body);
          if (method === 'GET' && up.statusCode === 200 && out.length > 0) {
            if (state.tamperBlobs && reqPath.includes('/blobs/')) {
              out = Buffer.from(out);
              out[0] ^= 0x01;
            }
            if (state.tamperManifests && reqPath.includes('/manifests/')) out = Buffer.concat([out, Buffer.from(' ')]);
          }
          const outHeaders = method === 'HEAD' ? up.headers : { ...up.headers, 'content-length': String(out.length) };
          res.writeHead(up.statusCode ?? 502, outHeaders);
          res.end(method === 'HEAD' ? undefined : out);
        });
      });
      upstream.on('error', (e) => {
        res.writeHead(502);
        res.end(e.message);
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const proxy: RegistryProxy = {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    get tamperBlobs() {
      return state.tamperBlobs;
    },
    set tamperBlobs(v: boolean) {
      state.tamperBlobs = v;
    },
    get tamperManifests() {
      return state.tamperManifests;
    },
    set tamperManifests(v: boolean) {
      state.tamperManifests = v;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return proxy;
}

export interface SampleModule {
  dir: string;
  /** The files written, by name. */
  files: Record<string, string>;
  remove(): void;
}

/**
 * Writes a module directory (module.yaml, manifest.yaml, default-cr.yaml) for `kcp module push`.
 * `overrides` replace or add files; a value of `null` leaves a file out.
 */
export function writeSampleModule(opts: { name?: string; version?: string; channels?: string[]; overrides?: Record<string, string | null> } = {}): SampleModule {
  const name = opts.name ?? 'sample-module';
  const version = opts.version ?? '1.0.0';
  const channels = opts.channels ?? ['regular'];
  const files: Record<string, string | null> = {
    'module.yaml': [
      `name: ${name}`,
      `version: ${version}`,
      `channels: [${channels.join(', ')}]`,
      'manager:',
      '  group: apps',
      '  version: v1',
      '  kind: Deployment',
      '  namespace: kyma-system',
      `  name: ${name}-manager`,
      'info:',
      `  repository: https://github.com/example/${name}`,
      `  documentation: https://example.com/docs/${name}`,
      '',
    ].join('\n'),
    'manifest.yaml': [
      'apiVersion: apiextensions.k8s.io/v1',
      'kind: CustomResourceDefinition',
      'metadata:',
      '  name: samples.operator.example.com',
      'spec:',
      '  group: operator.example.com',
      '  scope: Namespaced',
      '  names: { kind: Sample, plural: samples, singular: sample, listKind: SampleList }',
      '  versions:',
      '    - name: v1alpha1',
      '      served: true',
      '      storage: true',
      '      schema: { openAPIV3Schema: { type: object, x-kubernetes-preserve-unknown-fields: true } }',
      '---',
      'apiVersion: apps/v1',
      'kind: Deployment',
      'metadata:',
      `  name: ${name}-manager`,
      '  namespace: kyma-system',
      'spec:',
      '  replicas: 1',
      `  selector: { matchLabels: { app: ${name} } }`,
      '  template:',
      `    metadata: { labels: { app: ${name} } }`,
      `    spec: { containers: [{ name: manager, image: "example.com/${name}:${version}" }] }`,
      '---',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      `  name: ${name}-config`,
      '  namespace: kyma-system',
      'data:',
      `  version: "${version}"`,
      '',
    ].join('\n'),
    'default-cr.yaml': ['apiVersion: operator.example.com/v1alpha1', 'kind: Sample', 'metadata:', '  name: default', '  namespace: kyma-system', 'spec:', '  size: 1', ''].join('\n'),
    ...opts.overrides,
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'kcp-module-'));
  mkdirSync(dir, { recursive: true });
  const written: Record<string, string> = {};
  for (const [file, content] of Object.entries(files)) {
    if (content === null) continue;
    writeFileSync(path.join(dir, file), content);
    written[file] = content;
  }
  return { dir, files: written, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
