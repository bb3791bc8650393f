// The chaos run: the whole landscape (`kcp up`: controllers in one process, the API server and the
// simulators in another, docker-registry or the in-process registry, the demo catalog) on one data
// dir, killed with SIGKILL at random moments of provisioning, module installs, upgrades, credential
// rotation and deletions, and restarted each time. At the end every runtime and module must converge
// and the invariants hold: every write the driver had acknowledged is there, exactly one Shoot per
// Runtime, nothing orphaned in the KCP, the garden or a runtime, no module resource left over or
// duplicated. Used by test/chaos/chaos.test.ts (small) and `npm run chaos` (200 runtimes, 10 kills).
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { Shoot, type ShootObject } from '../../src/api/gardener/index.js';
import { AnnotationForceKubeconfigRotation, GardenerCluster, Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { DEFAULT_REMOTE_KYMA_NAME, Kyma, type KymaObject, Labels, Manifest, type ManifestObject, Namespaces } from '../../src/api/operator/index.js';
import { adminCall } from '../../src/apiserver/admin-client.js';
import { buildRuntimeAndKyma, validateRuntimeRequest } from '../../src/cli/runtime-spec.js';
import type { KubeObject } from '../../src/kube/object.js';
import { type Client, clientFromKubeconfig, findObject } from '../../src/runtime/client/index.js';
import { sleep } from '../../src/util/sleep.js';
import { processRunning } from '../support/processes.js';

const CHILD = fileURLToPath(new URL('./up-child.js', import.meta.url));
const CATALOG = fileURLToPath(new URL('../../../demo-modules/', import.meta.url));
const NS = Namespaces.ControlPlane;
const SECRET = { apiVersion: 'v1', kind: 'Secret' };
const REMOTE_NS = 'kyma-system';

export interface ChaosOptions {
  dataDir: string;
  runtimes: number;
  /** SIGKILLs in all (at least one per phase: the first five go to the five phases, the rest to convergence after a restart). */
  kills: number;
  seed: number;
  /** How long the final convergence may take. */
  convergeTimeoutMs: number;
  log?: (line: string) => void;
  /**
   * After the checks, break two invariants on purpose (a Shoot nobody asked for, a disabled module's
   * object put back into a runtime) and check again: the report's `controlViolations` must name both.
   */
  control?: boolean;
}

export interface Kill {
  phase: string;
  /** What was killed: the controllers' process (the landscape process then stops itself) or both processes at once. */
  target: 'controllers' | 'everything';
  /** Milliseconds after the phase's writes were acknowledged. */
  afterMs: number;
}

export interface ChaosReport {
  kills: Kill[];
  /** Milliseconds from the last restart until everything converged. */
  reconvergeMs: number;
  /** What the run checked at the end, one line per invariant, with how many objects it covered. */
  checked: string[];
  /** Invariants that did not hold (empty: the run passed). */
  violations: string[];
  /** With `control`: what the checks found after the two planted faults. */
  controlViolations?: string[];
}

/** A deterministic random sequence (mulberry32), so a failing seed can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
}

/** The demo catalog: per module, the version each channel serves and the objects each version installs. */
interface Catalog {
  modules: string[];
  version(module: string, channel: string): string;
  objects(module: string, version: string): ObjectRef[];
  versions(module: string): string[];
}

function loadCatalog(): Catalog {
  const channels = new Map<string, string>();
  const objects = new Map<string, ObjectRef[]>();
  const versions = new Map<string, string[]>();
  for (const module of readdirSync(CATALOG)) {
    for (const version of readdirSync(`${CATALOG}${module}`)) {
      const dir = `${CATALOG}${module}/${version}`;
      const def = yaml.load(readFileSync(`${dir}/module.yaml`, 'utf8')) as { channels?: string[] };
      for (const c of def.channels ?? []) channels.set(`${module}/${c}`, version);
      const docs = (yaml.loadAll(readFileSync(`${dir}/manifest.yaml`, 'utf8')) as (KubeObject | null)[]).filter((d): d is KubeObject => d !== null);
      objects.set(`${module}/${version}`, docs.map((d) => ({ apiVersion: d.apiVersion, kind: d.kind, namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? '' })));
      versions.set(module, [...(versions.get(module) ?? []), version]);
    }
  }
  return {
    modules: [...versions.keys()].sort(),
    version: (m, c) => channels.get(`${m}/${c}`) ?? '',
    objects: (m, v) => objects.get(`${m}/${v}`) ?? [],
    versions: (m) => versions.get(m) ?? [],
  };
}

/** One `kcp up` (as up-child.ts runs it) on the data dir: started, waited for, killed. */
class ControlPlaneProcess {
  private stderr = '';
  private constructor(
    private readonly child: ChildProcess,
    readonly pid: number,
    readonly landscapePid: number,
    readonly kcpKubeconfig: string,
    readonly gardenKubeconfig: string,
    readonly url: string,
  ) {}

  static start(dataDir: string): Promise<ControlPlaneProcess> {
    // Its own process group, so that killing it is this driver's decision alone.
    const child = spawn(process.execPath, [CHILD, dataDir], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    return new Promise((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => fail(new Error('kcp up did not come up within 120 s')), 120_000);
      const fail = (e: Error) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${e.message}; stderr: ${err}`));
      };
      child.once('exit', (code, signal) => fail(new Error(`kcp up exited while starting (${signal ?? code})`)));
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const line = out.split('\n')[0];
        if (!out.includes('\n')) return;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        const info = JSON.parse(line) as { pid: number; landscapePid: number; url: string; files: { kcpKubeconfig: string; gardenKubeconfig: string } };
        const p = new ControlPlaneProcess(child, info.pid, info.landscapePid, readFileSync(info.files.kcpKubeconfig, 'utf8'), readFileSync(info.files.gardenKubeconfig, 'utf8'), info.url);
        p.stderr = err;
        child.stderr?.on('data', (d: string) => (p.stderr = (p.stderr + d).slice(-4000)));
        resolve(p);
      });
    });
  }

  /** SIGKILL, then waits until every killed process is gone (the landscape process too, by itself or killed). */
  async kill(target: Kill['target']): Promise<void> {
    process.kill(this.pid, 'SIGKILL');
    if (target === 'everything' && processRunning(this.landscapePid)) process.kill(this.landscapePid, 'SIGKILL');
    const deadline = Date.now() + 30_000;
    while (processRunning(this.pid) || processRunning(this.landscapePid)) {
      if (Date.now() > deadline) throw new Error(`processes ${this.pid} or ${this.landscapePid} still running 30 s after SIGKILL`);
      await sleep(50);
    }
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
  }

  get lastStderr(): string {
    return this.stderr;
  }
}

interface Expected {
  shoot: string;
  channel: string;
  modules: string[];
  deleted: boolean;
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? (() => undefined);
  const rand = random(opts.seed);
  const catalog = loadCatalog();
  const expected = new Map<string, Expected>();
  const kills: Kill[] = [];
  let cp = await ControlPlaneProcess.start(opts.dataDir);
  let kcp = clientFromKubeconfig(cp.kcpKubeconfig, { qps: 0 });
  const runtimeClients = new Map<string, Client>();
  const closeClients = () => {
    kcp.close();
    for (const c of runtimeClients.values()) c.close();
    runtimeClients.clear();
  };
  const restart = async () => {
    closeClients();
    cp = await ControlPlaneProcess.start(opts.dataDir);
    kcp = clientFromKubeconfig(cp.kcpKubeconfig, { qps: 0 });
  };
  /** A runtime's own client, from its kubeconfig Secret in the KCP (as `kcp kubeconfig` gives it). */
  const runtimeClient = async (name: string): Promise<Client> => {
    const cached = runtimeClients.get(name);
    if (cached) return cached;
    const s = await kcp.get<KubeObject & { data?: Record<string, string> }>(SECRET, { namespace: NS, name: `kubeconfig-${name}` });
    const c = clientFromKubeconfig(Buffer.from(s.data?.config ?? '', 'base64').toString('utf8'), { qps: 0 });
    runtimeClients.set(name, c);
    return c;
  };
  const pick = <T>(items: T[], share: number): T[] => items.filter(() => rand() < share);
  const live = () => [...expected.entries()].filter(([, e]) => !e.deleted).map(([n]) => n);
  let killsLeft = opts.kills;
  const killNow = async (phase: string, maxDelayMs: number) => {
    const afterMs = Math.round(200 + rand() * maxDelayMs);
    await sleep(afterMs);
    const target: Kill['target'] = kills.length % 2 === 0 ? 'controllers' : 'everything';
    log(`kill ${kills.length + 1}/${opts.kills}: ${target}, ${afterMs} ms into ${phase}`);
    await cp.kill(target);
    kills.push({ phase, target, afterMs });
    killsLeft--;
    await restart();
  };

  try {
    // 1. Provisioning: Runtimes and Kymas as `kcp runtime create --module ...` makes them.
    for (let i = 0; i < opts.runtimes; i++) {
      const name = `chaos-${String(i).padStart(4, '0')}`;
      const built = buildRuntimeAndKyma(
        validateRuntimeRequest({ name, provider: 'aws', region: 'eu-central-1', administrators: ['admin@example.com'], minimum: 1, maximum: 3, purpose: 'evaluation', platformRegion: 'cf-eu10', globalAccountID: 'ga-1', subaccountID: 'sa-1', channel: 'regular' }),
        NS,
      );
      await kcp.create<RuntimeObject>(built.runtime);
      await kcp.create<KymaObject>({ ...built.kyma, spec: { ...built.kyma.spec, modules: catalog.modules.map((m) => ({ name: m })) } });
      expected.set(name, { shoot: built.runtime.spec.shoot.name, channel: 'regular', modules: [...catalog.modules], deleted: false });
    }
    await killNow('provisioning', 2500);

    // 2. Module installs: once the first Manifests exist.
    await waitUntil('the first Manifests', async () => (await kcp.list<ManifestObject>(Manifest, { namespace: NS })).items.length > 0, 120_000);
    await killNow('module installs', 1500);

    // Each later phase starts from a converged fleet, so that its kill hits its own work.
    await converge('before the upgrades');
    // 3. Upgrades: half the runtimes move to the fast channel (newer versions of every module), each
    // switched by its runtime admin in the runtime's own Kyma (the KCP Kyma follows it).
    for (const name of pick(live(), 0.5)) {
      await (await runtimeClient(name)).patch(Kyma, { namespace: REMOTE_NS, name: DEFAULT_REMOTE_KYMA_NAME }, 'merge', { spec: { channel: 'fast' } });
      expected.get(name)!.channel = 'fast';
    }
    await killNow('upgrades', 1500);

    await converge('before the rotation');
    // 4. Credential rotation: every kubeconfig forced at once.
    for (const name of live()) {
      await kcp.patch(GardenerCluster, { namespace: NS, name }, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: 'true' } } });
    }
    await killNow('credential rotation', 1000);

    await converge('before the deletions');
    // 5. Deletions: a quarter of the runtimes deleted (as `kcp runtime delete`), a module disabled in
    // another quarter by its runtime admin (in the runtime's own Kyma).
    const names = live();
    for (const [i, name] of names.entries()) {
      if (i % 4 === 0) {
        await kcp.delete(Runtime, { namespace: NS, name });
        expected.get(name)!.deleted = true;
      } else if (i % 4 === 1) {
        const e = expected.get(name)!;
        const drop = e.modules[Math.floor(rand() * e.modules.length)];
        const runtime = await runtimeClient(name);
        const remote = await runtime.get<KymaObject>(Kyma, { namespace: REMOTE_NS, name: DEFAULT_REMOTE_KYMA_NAME });
        await runtime.update<KymaObject>({ ...remote, spec: { ...remote.spec, modules: (remote.spec.modules ?? []).filter((m) => m.name !== drop) } });
        e.modules = e.modules.filter((m) => m !== drop);
      }
    }
    await killNow('deletions', 1500);

    // The rest: kills while the fleet converges after a restart.
    while (killsLeft > 0) await killNow('convergence after a restart', 3000);

    const started = Date.now();
    await converge('at the end', opts.convergeTimeoutMs);
    const reconvergeMs = Date.now() - started;
    const { checked, violations } = await invariants();
    if (!opts.control) return { kills, reconvergeMs, checked, violations };
    await plantFaults();
    return { kills, reconvergeMs, checked, violations, controlViolations: (await invariants()).violations };
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\nlast stderr of kcp up: ${cp.lastStderr}`, { cause: e });
  } finally {
    closeClients();
    await cp.kill('everything').catch(() => undefined);
  }

  async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
      await sleep(250);
    }
  }

  /** What still keeps the fleet from having converged (empty: converged). */
  async function notConverged(): Promise<string[]> {
    const runtimes = new Map((await kcp.list<RuntimeObject>(Runtime, { namespace: NS })).items.map((r) => [r.metadata.name ?? '', r]));
    const kymas = new Map((await kcp.list<KymaObject>(Kyma, { namespace: NS })).items.map((k) => [k.metadata.name ?? '', k]));
    const open: string[] = [];
    for (const [name, e] of expected) {
      const rt = runtimes.get(name);
      const kyma = kymas.get(name);
      if (e.deleted) {
        if (rt || kyma) open.push(`${name}: still there after its deletion`);
        continue;
      }
      if (rt?.status?.state !== 'Ready') open.push(`${name}: Runtime ${rt?.status?.state ?? 'missing'}`);
      if (kyma?.status?.state !== 'Ready') open.push(`${name}: Kyma ${kyma?.status?.state ?? 'missing'}`);
      const modules = kyma?.status?.modules ?? [];
      for (const m of e.modules) {
        const s = modules.find((x) => x.name === m);
        const version = catalog.version(m, e.channel);
        if (s?.state !== 'Ready' || s.version !== version) open.push(`${name}: module ${m} ${s?.state ?? 'missing'} ${s?.version ?? ''} (want Ready ${version})`);
      }
      for (const s of modules) if (!e.modules.includes(s.name)) open.push(`${name}: module ${s.name} still listed after it was disabled`);
    }
    return open;
  }

  async function converge(when: string, timeoutMs = opts.convergeTimeoutMs): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastLog = 0;
    for (;;) {
      const open = await notConverged().catch((e: unknown) => [`the KCP did not answer: ${String(e)}`]);
      if (open.length === 0) {
        log(`converged ${when}`);
        return;
      }
      if (Date.now() > deadline) throw new Error(`not converged ${when} after ${timeoutMs} ms: ${open.length} open, e.g. ${open.slice(0, 5).join('; ')}`);
      if (Date.now() - lastLog > 10_000) {
        lastLog = Date.now();
        log(`converging ${when}: ${open.length} open (${open[0]})`);
      }
      await sleep(500);
    }
  }

  /** A Shoot no Runtime asked for, and an object of a module its runtime disabled. */
  async function plantFaults(): Promise<void> {
    const garden = clientFromKubeconfig(cp.gardenKubeconfig, { qps: 0 });
    try {
      const [template] = (await garden.list<ShootObject>(Shoot)).items;
      const { metadata, spec } = template;
      await garden.create<ShootObject>({ apiVersion: template.apiVersion, kind: template.kind, metadata: { name: 'planted', namespace: metadata.namespace }, spec });
    } finally {
      garden.close();
    }
    const [name, e] = [...expected.entries()].find(([, x]) => !x.deleted && x.modules.length < catalog.modules.length)!;
    const disabled = catalog.modules.find((m) => !e.modules.includes(m))!;
    const object = catalog.objects(disabled, catalog.versions(disabled)[0]).find((o) => o.kind === 'ConfigMap' || o.kind === 'ServiceAccount')!;
    const runtime = await runtimeClient(name);
    await runtime.create({ apiVersion: object.apiVersion, kind: object.kind, metadata: { name: object.name, namespace: object.namespace || undefined } } as KubeObject);
  }

  /** The invariants, checked on the converged fleet. */
  async function invariants(): Promise<{ checked: string[]; violations: string[] }> {
    const checked: string[] = [];
    const violations: string[] = [];
    const alive = live();
    const gone = [...expected.keys()].filter((n) => expected.get(n)!.deleted);

    // Acknowledged writes: the Runtimes created, the channels and modules the runtime admins set.
    const kymas = new Map((await kcp.list<KymaObject>(Kyma, { namespace: NS })).items.map((k) => [k.metadata.name ?? '', k]));
    for (const name of alive) {
      const e = expected.get(name)!;
      const kyma = kymas.get(name);
      if ((kyma?.spec.channel ?? '') !== e.channel) violations.push(`${name}: Kyma channel ${kyma?.spec.channel} instead of the acknowledged ${e.channel}`);
      const remote = await (await runtimeClient(name)).get<KymaObject>(Kyma, { namespace: REMOTE_NS, name: DEFAULT_REMOTE_KYMA_NAME });
      if (remote.spec.channel !== e.channel) violations.push(`${name}: runtime Kyma channel ${remote.spec.channel} instead of the acknowledged ${e.channel}`);
      const remoteModules = (remote.spec.modules ?? []).map((m) => m.name).sort();
      if (remoteModules.join() !== [...e.modules].sort().join()) violations.push(`${name}: runtime Kyma modules ${remoteModules.join(',')} instead of the acknowledged ${[...e.modules].sort().join(',')}`);
    }
    checked.push(`acknowledged writes: ${alive.length} Kymas' channels (runtime and KCP) and runtime modules, ${gone.length} deletions`);

    // Exactly one Shoot per Runtime, none for a deleted one.
    const garden = clientFromKubeconfig(cp.gardenKubeconfig, { qps: 0 });
    try {
      const shoots = (await garden.list<ShootObject>(Shoot)).items.map((s) => s.metadata.name ?? '').sort();
      const wanted = alive.map((n) => expected.get(n)!.shoot).sort();
      if (shoots.join() !== wanted.join()) violations.push(`Shoots ${shoots.length} (${shoots.filter((s) => !wanted.includes(s)).join(',') || 'none extra'}) instead of one per Runtime (${wanted.length}; missing ${wanted.filter((s) => !shoots.includes(s)).join(',') || 'none'})`);
      checked.push(`one Shoot per Runtime: ${shoots.length} Shoots for ${alive.length} Runtimes`);
    } finally {
      garden.close();
    }

    // Nothing orphaned in the KCP: GardenerClusters, kubeconfig Secrets, Kymas and Manifests belong to live runtimes and enabled modules.
    const namesOf = async (kind: { apiVersion: string; kind: string }, labelSelector?: string) => (await kcp.list(kind, { namespace: NS, labelSelector })).items.map((o) => o.metadata.name ?? '');
    const clusters = await namesOf(GardenerCluster);
    const secrets = (await namesOf(SECRET)).filter((n) => n.startsWith('kubeconfig-')).map((n) => n.slice('kubeconfig-'.length));
    for (const [what, names] of [['GardenerClusters', clusters], ['kubeconfig Secrets', secrets], ['Kymas', [...kymas.keys()]]] as const) {
      const extra = names.filter((n) => expected.has(n) && !alive.includes(n));
      const missing = alive.filter((n) => !names.includes(n));
      if (extra.length > 0 || missing.length > 0) violations.push(`${what}: left over ${extra.join(',') || 'none'}, missing ${missing.join(',') || 'none'}`);
    }
    const manifests = (await kcp.list<ManifestObject>(Manifest, { namespace: NS })).items;
    for (const m of manifests) {
      const kyma = m.metadata.labels?.[Labels.KymaName] ?? '';
      const module = m.metadata.labels?.[Labels.ModuleName] ?? '';
      if (!alive.includes(kyma) || !expected.get(kyma)!.modules.includes(module)) violations.push(`Manifest ${m.metadata.name} of ${kyma}/${module} left over`);
    }
    const wantedManifests = alive.reduce((n, name) => n + expected.get(name)!.modules.length, 0);
    if (manifests.length !== wantedManifests) violations.push(`${manifests.length} Manifests instead of ${wantedManifests}`);
    checked.push(`no orphans in the KCP: ${clusters.length} GardenerClusters, ${secrets.length} kubeconfig Secrets, ${kymas.size} Kymas, ${manifests.length} Manifests`);

    // The runtime clusters: one logical cluster per live runtime, none for a deleted one.
    // The KCP's kubeconfig holds the server's admin token (the default cluster's), which the admin endpoints take.
    const admin = parseKubeconfig(cp.kcpKubeconfig);
    const logical = (await adminCall(cp.url, admin.token, admin.caPem, 'GET', '/_kcp/clusters')) as { clusters: string[] };
    const names = logical.clusters.filter((c) => c.startsWith('shoot--'));
    const wantedClusters = alive.map((n) => expected.get(n)!.shoot);
    const extraClusters = names.filter((c) => !wantedClusters.some((s) => c.endsWith(`--${s}`)));
    if (extraClusters.length > 0 || names.length !== wantedClusters.length) violations.push(`runtime clusters: ${names.length} for ${wantedClusters.length} runtimes (left over: ${extraClusters.join(',') || 'none'})`);
    checked.push(`one runtime cluster per Runtime: ${names.length}`);

    // Module resources in each runtime: the enabled version's objects all there, nothing of a
    // disabled module or of another version left over.
    let present = 0;
    let absent = 0;
    for (const name of alive) {
      const e = expected.get(name)!;
      const runtime = await runtimeClient(name);
      for (const module of catalog.modules) {
        const enabled = e.modules.includes(module);
        const version = enabled ? catalog.version(module, e.channel) : '';
        const want = enabled ? catalog.objects(module, version) : [];
        const key = (o: ObjectRef) => `${o.kind}/${o.namespace}/${o.name}`;
        const wantKeys = new Set(want.map(key));
        const unwanted = [...new Map(catalog.versions(module).flatMap((v) => catalog.objects(module, v)).map((o) => [key(o), o])).values()].filter((o) => !wantKeys.has(key(o)));
        for (const o of want) {
          if (!(await exists(runtime, o))) violations.push(`${name}: ${module} ${version} ${key(o)} missing`);
          present++;
        }
        for (const o of unwanted) {
          if (await exists(runtime, o)) violations.push(`${name}: ${key(o)} left over (${module} ${enabled ? `is at ${version}` : 'was disabled'})`);
          absent++;
        }
      }
    }
    checked.push(`module resources in ${alive.length} runtimes: ${present} present as they should be, ${absent} absent as they should be`);
    return { checked, violations };
  }
}

async function exists(c: Client, o: ObjectRef): Promise<boolean> {
  return (await findObject(c, { apiVersion: o.apiVersion, kind: o.kind }, { namespace: o.namespace || undefined, name: o.name })) !== undefined;
}

function parseKubeconfig(text: string): { token: string; caPem: string } {
  const k = yaml.load(text) as { clusters: { cluster: { 'certificate-authority-data': string } }[]; users: { user: { token: string } }[] };
  return { token: k.users[0].user.token, caPem: Buffer.from(k.clusters[0].cluster['certificate-authority-data'], 'base64').toString('utf8') };
}
