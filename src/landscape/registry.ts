// The OCI registry of the embedded landscape, where the demo catalog (and anything `kcp module push`
// sends) lives. Two kinds, same address form (`127.0.0.1:<port>`, plain http as loopback is):
//
// - Debian's `docker-registry` (CNCF distribution) as a child process, storage in the data dir: a
//   real registry, pushes work, content survives restarts.
// - When that binary is not installed, an in-process registry that is read-only over HTTP: it
//   answers the distribution API's GET and HEAD of `/v2/`, manifests (by tag or digest) and blobs,
//   and refuses every write with `405 UNSUPPORTED`. The landscape fills it in-process (`publish`),
//   with the same on-disk content-addressed layout idea (blobs by digest, tags naming digests), so it
//   survives restarts too. `kcp module push` cannot push to it.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { createServer as createNetServer, type Socket } from 'node:net';
import path from 'node:path';
import { sha256Digest } from '../lifecycle/artifacts/digest.js';
import { OCI_MANIFEST } from '../lifecycle/artifacts/media-types.js';
import { type ModuleArtifact, pushModule } from '../lifecycle/artifacts/push.js';
import type { Logger } from '../runtime/log.js';
import { processAlive, processesWithCommandLine, spawnBoundToThisProcess } from '../util/bound-child.js';
import { sleep } from '../util/sleep.js';

export const DOCKER_REGISTRY_BINARY = process.env.DOCKER_REGISTRY_BIN ?? '/usr/bin/docker-registry';

export type RegistryKind = 'docker-registry' | 'in-process';

export interface LandscapeRegistry {
  kind: RegistryKind;
  /** `127.0.0.1:<port>`, as written in `oci://` links. */
  host: string;
  /** Directory holding the registry's content. */
  storage: string;
  /** Stores a module artifact under `repository:tag`; returns the manifest digest. */
  publish(repository: string, tag: string, artifact: ModuleArtifact, signal?: AbortSignal): Promise<string>;
  stop(): Promise<void>;
}

export interface RegistryStartOptions {
  /** Directory for the registry's content (created when missing). */
  storage: string;
  /** Port on 127.0.0.1; 0 or undefined: any free port. */
  port?: number;
}

export function dockerRegistryInstalled(binary: string = DOCKER_REGISTRY_BINARY): boolean {
  return existsSync(binary);
}

/** A free TCP port on 127.0.0.1 (free when asked; another process may take it in between). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// docker-registry as a child process
//
// It never outlives the process that started it (spawnBoundToThisProcess: the kernel kills it when
// that process dies, SIGKILL included); endLeftoverDockerRegistries ends one an earlier run left
// serving the same storage (where the parent-death signal is not available, or from older versions);
// and when it exits while running it is started again on the same address, so the templates' links
// stay valid.

export interface DockerRegistryOptions extends RegistryStartOptions {
  binary?: string;
  /** Where restarts are reported (default: nowhere). */
  logger?: Logger;
  /** First delay before another try when a restart fails (doubling up to 30 s; default 500 ms). */
  restartDelayMs?: number;
}

/** A docker-registry process as started: how it ended, what it wrote to stderr. */
interface RegistryProcess {
  child: ChildProcess;
  /** Resolves when it exited: `code N` or `signal S`. */
  exited: Promise<string>;
  stderr(): string;
}

export async function startDockerRegistry(opts: DockerRegistryOptions): Promise<LandscapeRegistry & { pid(): number | undefined }> {
  const binary = opts.binary ?? DOCKER_REGISTRY_BINARY;
  const log = opts.logger;
  const port = opts.port || (await freePort());
  mkdirSync(opts.storage, { recursive: true });
  const configPath = registryConfigPath(opts.storage);
  writeFileSync(
    configPath,
    [
      'version: 0.1',
      'log:',
      '  level: error',
      '  accesslog:',
      '    disabled: true',
      'storage:',
      '  filesystem:',
      `    rootdirectory: ${path.join(opts.storage, 'data')}`,
      '  delete:',
      '    enabled: true',
      'http:',
      `  addr: 127.0.0.1:${port}`,
      '  secret: kcp-embedded-landscape',
      '',
    ].join('\n'),
  );
  const host = `127.0.0.1:${port}`;

  const lifetime = new AbortController();
  let current: RegistryProcess | undefined;
  const launch = async (): Promise<RegistryProcess> => {
    const proc = spawnRegistry(binary, configPath);
    current = proc;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`docker-registry on ${host} exited: ${proc.stderr() || (await proc.exited)}`);
      const status = await probeHttp(`http://${host}/v2/`);
      if (status === 200) return proc;
      if (Date.now() > deadline) {
        await killAndWait(proc.child, proc.exited);
        throw new Error(`docker-registry did not answer on http://${host}/v2/ within 20 s: ${proc.stderr()}`);
      }
      await sleep(50);
    }
  };
  // Started again on the same address whenever it exits by itself, until stop().
  const supervise = (proc: RegistryProcess): void => {
    proc.exited.then(async (how) => {
      if (lifetime.signal.aborted) return;
      log?.error('docker-registry exited; starting it again on the same address', { host, exit: how, stderr: lastLines(proc.stderr(), 3) || undefined });
      for (let delay = opts.restartDelayMs ?? 500; !lifetime.signal.aborted; delay = Math.min(delay * 2, 30_000)) {
        try {
          const again = await launch();
          if (lifetime.signal.aborted) return; // stop() ends it
          log?.info('docker-registry running again', { host, pid: again.child.pid });
          return supervise(again);
        } catch (e) {
          log?.error('docker-registry did not start again; retrying', { host, error: e, retryInMs: delay });
          await sleep(delay, lifetime.signal).catch(() => undefined);
        }
      }
    }).catch(() => undefined);
  };
  supervise(await launchWhilePortBusy(launch));
  return {
    kind: 'docker-registry',
    host,
    storage: opts.storage,
    async publish(repository, tag, artifact, signal) {
      const pushed = await pushModule(artifact, tag, { registry: host, repository, plainHttp: true, signal });
      return pushed.digest;
    },
    pid: () => current?.child.pid,
    async stop() {
      lifetime.abort();
      if (current) await killAndWait(current.child, current.exited);
    },
  };
}

/** docker-registry's fatal error when its port is taken. */
export function isAddressInUse(e: unknown): boolean {
  return e instanceof Error && e.message.includes('address already in use');
}

/**
 * The first start: a port that was free a moment ago can be busy for a moment (the remembered port
 * of a registry just ended, or briefly the source port of another connection), so a start that
 * fails on it is tried again for up to 3 s.
 */
async function launchWhilePortBusy(launch: () => Promise<RegistryProcess>): Promise<RegistryProcess> {
  const deadline = Date.now() + 3000;
  for (;;) {
    try {
      return await launch();
    } catch (e) {
      if (!isAddressInUse(e) || Date.now() > deadline) throw e;
      await sleep(100);
    }
  }
}

function spawnRegistry(binary: string, configPath: string): RegistryProcess {
  const { child } = spawnBoundToThisProcess(binary, ['serve', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr = (stderr + c).slice(-4000);
  });
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `code ${code}`));
    child.once('error', (e) => {
      stderr += `\n${e.message}`;
      if (child.pid === undefined) resolve('not started'); // no 'exit' follows
    });
  });
  return { child, exited, stderr: () => stderr.trim() };
}

function lastLines(text: string, n: number): string {
  return text.split('\n').slice(-n).join('\n');
}

function registryConfigPath(storage: string): string {
  return path.join(storage, 'config.yml');
}

/**
 * Ends docker-registry processes still serving this storage, left by a run that was killed before
 * it could stop them (they hold the port the next start wants). Call before choosing the port.
 */
export async function endLeftoverDockerRegistries(storage: string, opts: { binary?: string; logger?: Logger } = {}): Promise<void> {
  const log = opts.logger;
  const pids = processesWithCommandLine([opts.binary ?? DOCKER_REGISTRY_BINARY, 'serve', registryConfigPath(storage)]);
  if (pids.length === 0) return;
  log?.warn('ending a docker-registry an earlier run left serving this data dir', { pids });
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  const deadline = Date.now() + 5000;
  while (pids.some(processAlive)) {
    if (Date.now() > deadline) throw new Error(`a docker-registry left by an earlier run (pid ${pids.filter(processAlive).join(', ')}) does not exit`);
    await sleep(20);
  }
}

/** The HTTP status of a GET, or undefined when nothing answers (readiness probing). */
export function probeHttp(url: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 1000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
  });
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the child exited. */
export async function killAndWait(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------------------------------------
// The in-process read-only registry

const REPOSITORY = /^[a-z0-9]+(?:[._-][a-z0-9]+)*(?:\/[a-z0-9]+(?:[._-][a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const ROUTE = /^\/v2\/(.+)\/(manifests|blobs)\/([^/]+)$/;

/**
 * Content on disk under `storage`:
 *   blobs/sha256/<hex>                          every blob and manifest, by digest
 *   repositories/<repo>/tags/<tag>              the digest the tag names
 *   repositories/<repo>/links/<hex>             the blob or manifest belongs to the repository
 */
class ReadOnlyRegistryStore {
  constructor(private readonly root: string) {}

  private blobPath(digest: string): string {
    return path.join(this.root, 'blobs', 'sha256', digest.slice('sha256:'.length));
  }

  private repoPath(repository: string, ...rest: string[]): string {
    return path.join(this.root, 'repositories', ...repository.split('/'), ...rest);
  }

  write(repository: string, tag: string, artifact: ModuleArtifact): string {
    if (!REPOSITORY.test(repository)) throw new Error(`invalid repository name ${JSON.stringify(repository)}`);
    if (!TAG.test(tag)) throw new Error(`invalid tag ${JSON.stringify(tag)}`);
    const contents = [...[artifact.config, ...artifact.layers].map((b) => b.bytes), artifact.manifestBytes];
    for (const bytes of contents) {
      const digest = sha256Digest(bytes);
      writeAtomically(this.blobPath(digest), bytes);
      writeAtomically(this.repoPath(repository, 'links', digest.slice('sha256:'.length)), Buffer.alloc(0));
    }
    writeAtomically(this.repoPath(repository, 'tags', tag), Buffer.from(artifact.manifestDigest));
    return artifact.manifestDigest;
  }

  async resolve(repository: string, reference: string): Promise<string | undefined> {
    if (DIGEST.test(reference)) return existsSync(this.repoPath(repository, 'links', reference.slice(7))) ? reference : undefined;
    if (!TAG.test(reference)) return undefined;
    const digest = await readFile(this.repoPath(repository, 'tags', reference), 'utf8').catch(() => undefined);
    return digest?.trim();
  }

  hasRepository(repository: string): boolean {
    return existsSync(this.repoPath(repository));
  }

  read(digest: string): Promise<Buffer> {
    return readFile(this.blobPath(digest));
  }
}

function writeAtomically(file: string, bytes: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

export async function startInProcessRegistry(opts: RegistryStartOptions): Promise<LandscapeRegistry> {
  mkdirSync(opts.storage, { recursive: true });
  const store = new ReadOnlyRegistryStore(opts.storage);
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    serve(store, req, res).catch(() => {
      if (!res.headersSent) distributionError(res, 500, 'UNKNOWN', 'internal error');
      else res.destroy();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    kind: 'in-process',
    host,
    storage: opts.storage,
    publish: (repository, tag, artifact) => Promise.resolve(store.write(repository, tag, artifact)),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

async function serve(store: ReadOnlyRegistryStore, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  res.setHeader('Docker-Distribution-API-Version', 'registry/2.0');
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return distributionError(res, 405, 'UNSUPPORTED', 'this registry is read-only (the embedded landscape fills it; install docker-registry to push)');
  }
  const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname);
  if (urlPath === '/v2/' || urlPath === '/v2') return sendBody(res, method, 200, 'application/json', Buffer.from('{}'));
  const m = ROUTE.exec(urlPath);
  if (!m) return distributionError(res, 404, 'NOT_FOUND', `no route for ${urlPath}`);
  const [, repository, what, reference] = m;
  if (!REPOSITORY.test(repository)) return distributionError(res, 400, 'NAME_INVALID', `invalid repository name ${JSON.stringify(repository)}`);
  if (!store.hasRepository(repository)) return distributionError(res, 404, 'NAME_UNKNOWN', `repository name not known to registry: ${repository}`);
  if (what === 'blobs') {
    if (!DIGEST.test(reference)) return distributionError(res, 400, 'DIGEST_INVALID', `invalid digest ${JSON.stringify(reference)}`);
    const digest = await store.resolve(repository, reference);
    if (!digest) return distributionError(res, 404, 'BLOB_UNKNOWN', `blob unknown to registry: ${reference}`);
    const bytes = await store.read(digest);
    res.setHeader('Docker-Content-Digest', digest);
    return sendBody(res, method, 200, 'application/octet-stream', bytes);
  }
  const digest = await store.resolve(repository, reference);
  if (!digest) return distributionError(res, 404, 'MANIFEST_UNKNOWN', `manifest unknown: ${repository}:${reference}`);
  const bytes = await store.read(digest);
  res.setHeader('Docker-Content-Digest', digest);
  return sendBody(res, method, 200, manifestMediaType(bytes), bytes);
}

/** The manifest's own `mediaType` field (every manifest the landscape stores has one). */
function manifestMediaType(bytes: Buffer): string {
  try {
    const parsed = JSON.parse(bytes.toString('utf8')) as { mediaType?: unknown };
    return typeof parsed.mediaType === 'string' ? parsed.mediaType : OCI_MANIFEST;
  } catch {
    return OCI_MANIFEST;
  }
}

function sendBody(res: http.ServerResponse, method: string, status: number, contentType: string, bytes: Buffer): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Content-Length': bytes.length });
  res.end(method === 'HEAD' ? undefined : bytes);
}

function distributionError(res: http.ServerResponse, status: number, code: string, message: string): void {
  const body = Buffer.from(JSON.stringify({ errors: [{ code, message }] }));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': body.length });
  res.end(body);
}
