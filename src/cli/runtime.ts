// `kcp runtime create|list|describe|delete`: runtimes for people. A runtime is a Runtime (the cluster,
// provisioned by the infrastructure manager) plus its Kyma (the modules, managed by the lifecycle
// manager), both in `kcp-system` and named after the runtime ID, as the environment broker creates them.
import { isDeepStrictEqual } from 'node:util';
import { oidcSigningAlgorithms } from '../api/gardener/index.js';
import {
  AnnotationForceKubeconfigRotation,
  DefaultKubeconfigSecretKey,
  AnnotationRetryRequested,
  ConditionReasonCreationError,
  ConditionReasonProcessingErr,
  GardenerCluster,
  type GardenerClusterObject,
  kubeconfigSecretName,
  Runtime,
  RuntimeStateFailed,
  RuntimeStateReady,
  type RuntimeObject,
} from '../api/infrastructuremanager/index.js';
import { DEFAULT_CHANNEL, Kyma, type KymaObject, type ModuleStatus, States } from '../api/operator/index.js';
import { findObject, isAlreadyExists, isConflict, isNoKindMatch, isNotFound } from '../runtime/client/index.js';
import { closestFlag, type FlagTable, flagInt, flagString, type ParsedArgs, rejectExtra, switchOn, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, KCP_FLAGS, withKcp } from './connect.js';
import { lookupRuntime, requireRuntime, type RuntimeRecord, SECRET, type SecretObject } from './kubeconfig.js';
import { age, forDisplay, isTable, type OutputFormat, renderData, renderNames, renderTable, takeOutputFormat } from './output.js';
import { timeoutFlag } from './duration.js';
import { waitInContext } from './progress.js';
import { editRemoteKyma, remoteKyma, runtimeClient } from './runtime-kyma.js';
import { administratorsFrom, buildRuntimeAndKyma, checkKubernetesVersion, checkMachineType, providerProfiles, type ValidRuntimeRequest, validateRuntimeRequest } from './runtime-spec.js';

export const RUNTIME_USAGE = `Usage:
  kcp runtime create NAME --provider aws|azure|gcp|openstack|alicloud --region REGION
                     [--admin EMAIL[,EMAIL...]] [--machine-type TYPE] [--min N] [--max N]
                     [--kubernetes-version X.Y[.Z]]
                     [--purpose evaluation|testing|development|production|infrastructure]
                     [--platform-region cf-eu10] [--global-account ID] [--subaccount ID]
                     [--channel regular] [--wait [--timeout 10m]]
      Creates the Runtime and its Kyma as the environment broker would. --wait shows progress until
      the runtime is Ready (cluster provisioned, modules reconciled); it ends with exit 1 at once when
      the runtime fails.
  kcp runtime list [--state STATE]
      Runtimes with their state, the Kyma's state and channel, modules, and what is wrong if anything.
      --state keeps those whose Runtime or Kyma is in STATE (Pending, Ready, Failed, Terminating,
      Processing, Warning, Error, Deleting).
  kcp runtime describe NAME
  kcp runtime update NAME [--machine-type TYPE] [--min N] [--max N] [--kubernetes-version X.Y[.Z]]
                     [--admin EMAIL[,EMAIL...]] [--channel C]
                     [--oidc-issuer-url URL --oidc-client-id ID [--oidc-groups-claim C]
                      [--oidc-username-claim C] [--oidc-username-prefix P] [--oidc-signing-algs RS256,...]]
                     [--wait [--timeout 10m]]
      Changes the cluster (first worker pool, Kubernetes version, administrators, OIDC) and the
      Kyma's channel. The channel is switched in the runtime's own Kyma (kyma-system/default), as its
      admin would; the KCP Kyma follows it. --wait: until the control plane has applied this change
      and the runtime is Ready (a module refusing the new channel ends it with exit 1 and the reason).
  kcp runtime retry NAME [--wait [--timeout 10m]]
      Asks Gardener, through the infrastructure manager, to retry the operation it gave up on for a
      Failed runtime (after the cause is fixed).
  kcp runtime rotate NAME [--wait [--timeout 10m]]
      Rotates the runtime's admin kubeconfig now (the infrastructure manager otherwise rotates it
      before it expires); the previous one stays valid until its own expiry. --wait: until the
      kubeconfig Secret holds the new one.
  kcp runtime wait NAME [--for ready|deleted] [--timeout 10m]
      Follows a runtime until it is Ready (the default) or gone, with progress lines.
  kcp runtime delete NAME [--wait [--timeout 10m]]
      Deletes the Kyma (its modules are removed from the cluster first) and the Runtime (then the
      cluster goes). Without --wait it returns at once; \`kcp runtime wait NAME --for deleted\` follows it.
  Common flags: -o table|wide|json|yaml|name, --namespace kcp-system; the control plane:
  --kubeconfig KCP_FILE, else --data-dir DIR (DIR/kcp.kubeconfig), else $KUBECONFIG, else
  .kcp/kcp.kubeconfig.`;

const WAIT_FLAGS: FlagTable = { wait: 'switch', timeout: 'value' };
const CLUSTER_FLAGS: FlagTable = { 'machine-type': 'value', min: 'value', max: 'value', 'kubernetes-version': 'value', admin: 'value', channel: 'value' };
const OIDC_FLAGS: FlagTable = {
  'oidc-issuer-url': 'value',
  'oidc-client-id': 'value',
  'oidc-groups-claim': 'value',
  'oidc-username-claim': 'value',
  'oidc-username-prefix': 'value',
  'oidc-signing-algs': 'value',
};

/** The flags of each subcommand (aliases share their verb's table). */
const VERB_FLAGS: Record<string, FlagTable> = {
  create: {
    ...KCP_FLAGS,
    ...WAIT_FLAGS,
    ...CLUSTER_FLAGS,
    provider: 'value',
    region: 'value',
    purpose: 'value',
    'platform-region': 'value',
    'global-account': 'value',
    subaccount: 'value',
  },
  list: { ...KCP_FLAGS, state: 'value' },
  describe: KCP_FLAGS,
  update: { ...KCP_FLAGS, ...WAIT_FLAGS, ...CLUSTER_FLAGS, ...OIDC_FLAGS },
  retry: { ...KCP_FLAGS, ...WAIT_FLAGS },
  rotate: { ...KCP_FLAGS, ...WAIT_FLAGS },
  wait: { ...KCP_FLAGS, for: 'value', timeout: 'value' },
  delete: { ...KCP_FLAGS, ...WAIT_FLAGS },
};
const ALIASES: Record<string, string> = { ls: 'list', get: 'describe', rm: 'delete' };
const VERBS = 'create, list, describe, update, retry, rotate, wait or delete';

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
/** Failures of the Shoot operation or patch: what the infrastructure manager retries through Gardener. */
const RETRYABLE_REASONS: ReadonlySet<string> = new Set([ConditionReasonCreationError, ConditionReasonProcessingErr]);
const DEFAULT_ADMIN = 'admin@example.com';
const RUNTIME_STATES = ['Pending', 'Ready', 'Failed', 'Terminating'];
const KYMA_STATES = [States.Processing, States.Ready, States.Warning, States.Error, States.Deleting];

// ---------------------------------------------------------------------------------------------
// Status summaries shared by list, describe and the progress lines.

type Condition = NonNullable<NonNullable<RuntimeObject['status']>['conditions']>[number];

/** The condition that changed last (what the manager did most recently). */
export function latestCondition(conditions: Condition[] | undefined): Condition | undefined {
  return [...(conditions ?? [])].sort((a, b) => Date.parse(b.lastTransitionTime) - Date.parse(a.lastTransitionTime))[0];
}

/** `Pending: Shoot creation in progress [Create Processing 40%]`. */
export function runtimeProgress(rt: RuntimeObject | undefined): string {
  if (!rt) return 'Runtime not found';
  const state = runtimeState(rt);
  const message = latestCondition(rt.status?.conditions)?.message;
  const op = rt.status?.shootLastOperation;
  const shoot = op && op.state !== 'Succeeded' ? ` [shoot: ${op.type} ${op.state} ${op.progress}%]` : '';
  return `runtime ${state}${message ? `: ${message}` : ''}${shoot}`;
}

/** `Kyma Processing: not all modules are in ready state`. */
export function kymaProgress(kyma: KymaObject | undefined): string {
  if (!kyma) return 'Kyma not found';
  const state = kymaState(kyma);
  const message = kyma.status?.lastOperation?.operation;
  return `Kyma ${state}${message ? `: ${message}` : ''}`;
}

/** `keda, serverless (Processing)`: module names, the state of those not Ready. */
export function modulesSummary(kyma: KymaObject | undefined): string {
  const byName = new Map((kyma?.status?.modules ?? []).map((m) => [m.name, m] as const));
  const names = new Set([...(kyma?.spec?.modules ?? []).map((m) => m.name), ...byName.keys()]);
  if (names.size === 0) return '-';
  return [...names]
    .sort()
    .map((n) => {
      const state = byName.get(n)?.state || States.Processing;
      return state === States.Ready ? n : `${n} (${state})`;
    })
    .join(', ');
}

/** The Runtime's state as a person reads it (`Terminating` once deleted). */
export function runtimeState(rt: RuntimeObject): string {
  return rt.metadata.deletionTimestamp ? 'Terminating' : (rt.status?.state ?? 'Pending');
}

/** The Kyma's state as a person reads it (`Deleting` once deleted, `Processing` before its first status). */
export function kymaState(kyma: KymaObject): string {
  return kyma.metadata.deletionTimestamp ? States.Deleting : kyma.status?.state || States.Processing;
}

/** What needs a person's eye: the Runtime's latest condition unless it is Ready, else the Kyma's operation unless Ready. */
export function runtimeMessage(rt: RuntimeObject | undefined, kyma: KymaObject | undefined): string {
  if (rt && runtimeState(rt) !== RuntimeStateReady) return latestCondition(rt.status?.conditions)?.message ?? '';
  if (kyma && kymaState(kyma) !== States.Ready) return kyma.status?.lastOperation?.operation ?? '';
  return '';
}

/**
 * Whether a Runtime's status speaks of its current spec: a condition observed its generation. The
 * controllers write a status whole, state and conditions from one reconcile, so the state beside such
 * a condition is that reconcile's too.
 */
export function runtimeObserved(rt: RuntimeObject): boolean {
  const generation = rt.metadata.generation ?? 0;
  return (rt.status?.conditions ?? []).some((c) => (c.observedGeneration ?? 0) >= generation);
}

/** Whether a Kyma's status speaks of its current spec (the conditions observed its generation). */
export function kymaObserved(kyma: KymaObject): boolean {
  const generation = kyma.metadata.generation ?? 0;
  return (kyma.status?.conditions ?? []).some((c) => (c.observedGeneration ?? 0) >= generation);
}

export interface RuntimeSummary {
  name: string;
  provider: string;
  region: string;
  state: string;
  kymaState: string;
  channel: string;
  message: string;
  shoot?: string;
  kubernetesVersion?: string;
  created?: string;
  modules: { name: string; state: string; channel?: string; version?: string }[];
}

function summarize(rt: RuntimeObject | undefined, kyma: KymaObject | undefined, name: string): RuntimeSummary {
  return {
    name,
    provider: rt?.spec.shoot.provider.type ?? '-',
    region: rt?.spec.shoot.region ?? '-',
    state: rt ? runtimeState(rt) : '-',
    kymaState: kyma ? kymaState(kyma) : '-',
    channel: kyma ? (kyma.spec?.channel ?? DEFAULT_CHANNEL) : '-',
    message: runtimeMessage(rt, kyma),
    shoot: rt?.spec.shoot.name,
    kubernetesVersion: rt?.spec.shoot.kubernetes?.version,
    created: rt?.metadata.creationTimestamp ?? kyma?.metadata.creationTimestamp,
    modules: (kyma?.status?.modules ?? []).map((m: ModuleStatus) => ({ name: m.name, state: m.state || States.Processing, channel: m.channel, version: m.version })),
  };
}

// ---------------------------------------------------------------------------------------------
// create

/** What `create` asks for, checked before anything is asked of the control plane. */
function createRequest(args: ParsedArgs, positionals: string[]): ValidRuntimeRequest {
  const synopsis = 'kcp runtime create NAME --provider P --region R';
  const name = positionals[1];
  if (!name) throw new UsageError(`a runtime name is required: ${synopsis}`);
  rejectExtra(positionals, 2, synopsis);
  const provider = flagString(args, 'provider');
  if (!provider) throw new UsageError(`--provider is required: one of ${Object.keys(providerProfiles).join(', ')}`);
  const region = flagString(args, 'region');
  if (!region) throw new UsageError(`--region is required, e.g. --region ${providerProfiles[provider as keyof typeof providerProfiles]?.regions[0] ?? 'eu-central-1'}`);
  const maximum = flagInt(args, 'max', 20);
  return validateRuntimeRequest({
    name,
    provider,
    region,
    administrators: administratorsFrom(flagString(args, 'admin', DEFAULT_ADMIN) ?? DEFAULT_ADMIN),
    machineType: flagString(args, 'machine-type'),
    minimum: flagInt(args, 'min', Math.min(3, maximum)),
    maximum,
    purpose: flagString(args, 'purpose', 'production') ?? 'production',
    platformRegion: flagString(args, 'platform-region', 'cf-eu10') ?? 'cf-eu10',
    globalAccountID: flagString(args, 'global-account', 'local-global-account') ?? 'local-global-account',
    subaccountID: flagString(args, 'subaccount', `local-subaccount-${name}`) ?? name,
    channel: flagString(args, 'channel', DEFAULT_CHANNEL) ?? DEFAULT_CHANNEL,
    kubernetesVersion: flagString(args, 'kubernetes-version'),
  });
}

async function create(call: RuntimeCall, ctx: CliContext): Promise<void> {
  const { format, wait, timeoutMs } = call;
  const request = call.request as ValidRuntimeRequest;
  const { name } = request;
  if (await lookupRuntime(ctx, name)) throw new UsageError(`runtime ${name} already exists`);

  const { runtime, kyma } = buildRuntimeAndKyma(request, ctx.namespace);
  let createdRuntime: RuntimeObject;
  try {
    createdRuntime = await ctx.kcp.create(runtime, { signal: ctx.signal });
  } catch (e) {
    if (isAlreadyExists(e)) throw new UsageError(`runtime ${name} already exists`);
    throw new Error(`creating Runtime ${name} failed: ${(e as Error).message}`, { cause: e });
  }
  let createdKyma: KymaObject;
  try {
    createdKyma = await ctx.kcp.create(kyma, { signal: ctx.signal });
  } catch (e) {
    // Leave nothing half-created behind.
    await ctx.kcp.delete(Runtime, { namespace: ctx.namespace, name }).catch(() => undefined);
    throw new Error(`creating Kyma ${name} failed: ${(e as Error).message}`, { cause: e });
  }
  const objects = () => [createdRuntime, createdKyma];
  if (!wait) return printResult(format, ctx, `runtime ${name} created: ${request.provider} ${request.region}, shoot ${runtime.spec.shoot.name}, channel ${kyma.spec.channel}`, name, objects());
  if (isTable(format)) ctx.output.out(`runtime ${name} created: ${request.provider} ${request.region}, shoot ${runtime.spec.shoot.name}, channel ${kyma.spec.channel}\n`);
  await waitRuntimeReady(ctx, name, timeoutMs);
  const record = await lookupRuntime(ctx, name);
  printResult(format, ctx, `runtime ${name} is Ready`, name, [record?.runtime, record?.kyma]);
}

/**
 * What a command that changed a runtime prints: a line for a person, `runtime/NAME` for `-o name`, or
 * for `-o json|yaml` the objects (`{runtime, message}` when there are none left, after a deletion).
 */
function printResult(format: OutputFormat, ctx: CliContext, line: string, name: string, objects: (RuntimeObject | KymaObject | undefined)[]): void {
  if (isTable(format)) ctx.output.out(`${line}\n`);
  else if (format === 'name') ctx.output.out(renderNames('runtime', [name]));
  else if (objects.length === 0) ctx.output.out(renderData({ runtime: name, message: line }, format));
  else ctx.output.out(renderData({ apiVersion: 'v1', kind: 'List', items: objects.filter((o) => o !== undefined).map(forDisplay) }, format));
}

/** What a wait for a Ready runtime must see beyond a Ready Runtime for its current spec. */
export interface ReadyWait {
  /** After a retry: the failure before it, which is not the answer (compared by condition, not by clocks). */
  failedBefore?: Condition;
  /** After a channel change: the Kyma must have taken this channel, and a module left in Warning is a refused change. */
  channel?: string;
  /** The runtime has only a Kyma (its cluster is not managed here): only the Kyma is waited for. */
  kymaOnly?: boolean;
}

const sameCondition = (a: Condition | undefined, b: Condition | undefined) => a?.type === b?.type && a?.lastTransitionTime === b?.lastTransitionTime && a?.message === b?.message;

/** A wait's observation of a runtime: Ready once the current spec is applied and the Kyma settled; Failed ends it. */
async function observeRuntime(ctx: CliContext, name: string, signal: AbortSignal | undefined, expect: ReadyWait): Promise<{ status: string; done?: boolean; failed?: string }> {
  const rt = expect.kymaOnly ? undefined : await findObject<RuntimeObject>(ctx.kcp, Runtime, { namespace: ctx.namespace, name }, { signal });
  if (!expect.kymaOnly) {
    const runtimeWait = observeRuntimeObject(rt, name, expect);
    if (runtimeWait) return runtimeWait;
  }
  const kyma = await findObject<KymaObject>(ctx.kcp, Kyma, { namespace: ctx.namespace, name }, { signal });
  if (!kyma) return expect.kymaOnly ? { status: 'Kyma not found', failed: `runtime ${name}'s Kyma disappeared while waiting for it` } : { status: 'runtime Ready (no Kyma)', done: true };
  const state = kymaState(kyma);
  const status = `${expect.kymaOnly ? '' : 'runtime Ready, '}${kymaProgress(kyma)}`;
  if (!kymaObserved(kyma) || (expect.channel !== undefined && kyma.status?.activeChannel !== expect.channel)) return { status };
  if (expect.channel !== undefined && (state === States.Warning || state === States.Error)) {
    const troubled = (kyma.status?.modules ?? []).filter((m) => m.state === States.Warning || m.state === States.Error).map((m) => `${m.name}: ${m.message ?? m.state}`);
    return { status, failed: `runtime ${name}'s modules did not all follow channel ${expect.channel}: ${troubled.join('; ') || (kyma.status?.lastOperation?.operation ?? state)}` };
  }
  return { status, done: state === States.Ready || state === States.Warning };
}

/** The Runtime's part of a wait: undefined once it is Ready for its current spec (the Kyma decides then). */
function observeRuntimeObject(rt: RuntimeObject | undefined, name: string, expect: ReadyWait): { status: string; failed?: string } | undefined {
  if (!rt) return { status: 'Runtime not found', failed: `runtime ${name} disappeared while waiting for it` };
  const latest = latestCondition(rt.status?.conditions);
  // Until the manager took a retry (it removes the annotation), and while the failure shown is the one
  // from before the retry, the status does not answer it.
  const answered = runtimeObserved(rt) && !rt.metadata.annotations?.[AnnotationRetryRequested] && !(expect.failedBefore && sameCondition(latest, expect.failedBefore));
  if (rt.status?.state === RuntimeStateFailed && answered) return { status: runtimeProgress(rt), failed: `runtime ${name} failed: ${latest?.message ?? 'no reason given'}` };
  if (rt.status?.state !== RuntimeStateReady || !answered) return { status: runtimeProgress(rt) };
  return undefined;
}

/** Waits until the Runtime is Ready for its current spec and its Kyma has reconciled (Ready or Warning); fails at once when the Runtime fails. */
export async function waitRuntimeReady(ctx: CliContext, name: string, timeoutMs: number, expect: ReadyWait = {}): Promise<void> {
  await waitInContext(ctx, `runtime ${name} to become Ready`, timeoutMs, (signal) => observeRuntime(ctx, name, signal, expect));
}

/** Waits until neither the Runtime nor the Kyma exists any more. */
async function waitRuntimeGone(ctx: CliContext, name: string, timeoutMs: number): Promise<void> {
  await waitInContext(ctx, `runtime ${name} to be deleted`, timeoutMs, async (signal) => {
    const [rt, kyma] = await Promise.all([
      findObject<RuntimeObject>(ctx.kcp, Runtime, { namespace: ctx.namespace, name }, { signal }),
      findObject<KymaObject>(ctx.kcp, Kyma, { namespace: ctx.namespace, name }, { signal }),
    ]);
    if (!rt && !kyma) return { status: 'runtime deleted', done: true };
    return { status: [kyma ? kymaProgress(kyma) : 'Kyma deleted', rt ? runtimeProgress(rt) : 'runtime deleted'].join('; ') };
  });
}

// ---------------------------------------------------------------------------------------------
// list

/** Every runtime of the KCP: Runtimes and Kymas paired by name, sorted by name. */
export async function loadRuntimes(ctx: CliContext): Promise<{ name: string; runtime?: RuntimeObject; kyma?: KymaObject }[]> {
  const [runtimes, kymas] = await Promise.all([
    ctx.kcp.list<RuntimeObject>(Runtime, { namespace: ctx.namespace, signal: ctx.signal }).then((r) => r.items, absentKind<RuntimeObject>),
    ctx.kcp.list<KymaObject>(Kyma, { namespace: ctx.namespace, signal: ctx.signal }).then((r) => r.items, absentKind<KymaObject>),
  ]);
  const rtByName = new Map(runtimes.map((r) => [r.metadata.name ?? '', r] as const));
  const kymaByName = new Map(kymas.map((k) => [k.metadata.name ?? '', k] as const));
  const names = [...new Set([...rtByName.keys(), ...kymaByName.keys()])].filter(Boolean).sort();
  return names.map((name) => ({ name, runtime: rtByName.get(name), kyma: kymaByName.get(name) }));
}

/** A list of a kind this KCP does not serve is empty (e.g. a KCP running only the lifecycle manager). */
export function absentKind<T>(e: unknown): T[] {
  if (isNoKindMatch(e)) return [];
  throw e;
}

/** `--state`: one of the Runtime's or the Kyma's states, any case; a one-line error otherwise. */
function stateFilter(args: ParsedArgs): string | undefined {
  const given = flagString(args, 'state');
  if (given === undefined) return undefined;
  const known = [...RUNTIME_STATES, ...KYMA_STATES];
  const state = known.find((s) => s.toLowerCase() === given.toLowerCase());
  if (!state) throw new UsageError(`unknown state ${JSON.stringify(given)} for --state: use one of ${known.join(', ')}`);
  return state;
}

async function listCommand(call: RuntimeCall, ctx: CliContext): Promise<void> {
  const { format, state } = call;
  const all = (await loadRuntimes(ctx)).map((r) => ({ ...r, summary: summarize(r.runtime, r.kyma, r.name) })).filter((r) => !state || r.summary.state === state || r.summary.kymaState === state);
  if (format === 'name') return ctx.output.out(renderNames('runtime', all.map((r) => r.name)));
  if (!isTable(format)) return ctx.output.out(renderData(all.map((r) => r.summary), format));
  if (all.length === 0) return ctx.output.out(state ? `No runtimes in ${ctx.namespace} in state ${state}.\n` : `No runtimes in ${ctx.namespace}.\n`);
  const now = (ctx.now ?? Date.now)();
  const wide = format === 'wide';
  const headers = ['NAME', 'PROVIDER', 'REGION', ...(wide ? ['SHOOT', 'KUBERNETES'] : []), 'STATE', 'KYMA', 'CHANNEL', 'MODULES', 'AGE', 'MESSAGE'];
  const rows = all.map(({ summary: s, kyma }) => [
    s.name,
    s.provider,
    s.region,
    ...(wide ? [s.shoot ?? '-', s.kubernetesVersion ?? 'default'] : []),
    s.state,
    s.kymaState,
    s.channel,
    modulesSummary(kyma),
    age(s.created, now),
    s.message,
  ]);
  ctx.output.out(renderTable(headers, rows));
}
// ---------------------------------------------------------------------------------------------
// describe

function describe(record: RuntimeRecord, ctx: CliContext): string {
  const { runtime: rt, kyma } = record;
  const now = (ctx.now ?? Date.now)();
  const lines: string[] = [];
  const field = (label: string, value: string | undefined) => lines.push(`${`${label}:`.padEnd(17)}${value ?? '-'}`);
  field('Name', record.name);
  field('Runtime ID', record.runtimeID);
  if (rt) {
    const shoot = rt.spec.shoot;
    field('Provider', shoot.provider.type);
    field('Region', `${shoot.region} (platform region ${shoot.platformRegion})`);
    field('Shoot', `${shoot.name} (purpose ${shoot.purpose}, Kubernetes ${shoot.kubernetes?.version ?? 'default'})`);
    for (const w of [...shoot.provider.workers, ...(shoot.provider.additionalWorkers ?? [])]) {
      field('Worker pool', `${w.name}: ${w.machine.type}, ${w.minimum ?? 0}..${w.maximum ?? 0} nodes, zones ${(w.zones ?? []).join(', ') || '-'}`);
    }
    field('Networks', `nodes ${shoot.networking.nodes}, pods ${shoot.networking.pods}, services ${shoot.networking.services}`);
    field('Administrators', rt.spec.security.administrators.join(', '));
    field('State', runtimeState(rt));
    field('Created', `${rt.metadata.creationTimestamp ?? '-'} (${age(rt.metadata.creationTimestamp, now)} ago)`);
    const op = rt.status?.shootLastOperation;
    if (op) field('Shoot operation', `${op.type} ${op.state} ${op.progress}%${op.description ? `: ${op.description}` : ''}`);
    const conditions = rt.status?.conditions ?? [];
    lines.push('Conditions:');
    if (conditions.length === 0) lines.push('  (none yet)');
    else lines.push(indent(renderTable(['TYPE', 'STATUS', 'REASON', 'MESSAGE'], conditions.map((c) => [c.type, c.status, c.reason, c.message]))));
  } else field('Runtime', 'none (only a Kyma exists for this name)');
  if (kyma) {
    lines.push('Kyma:');
    lines.push(`  Channel: ${kyma.spec?.channel ?? DEFAULT_CHANNEL}   State: ${kymaState(kyma)}${kyma.status?.lastOperation ? `   Last: ${kyma.status.lastOperation.operation}` : ''}`);
    const modules = kyma.status?.modules ?? [];
    lines.push('Modules:');
    if (modules.length === 0 && (kyma.spec?.modules ?? []).length === 0) lines.push('  (none enabled)');
    else {
      const rows = modules.map((m) => [m.name, m.channel ?? '-', m.version ?? '-', m.state || States.Processing, m.message ?? '']);
      for (const m of kyma.spec?.modules ?? []) if (!modules.some((s) => s.name === m.name)) rows.push([m.name, m.channel ?? '-', m.version ?? '-', 'Processing', 'not reconciled yet']);
      lines.push(indent(renderTable(['NAME', 'CHANNEL', 'VERSION', 'STATE', 'MESSAGE'], rows)));
    }
  } else lines.push('Kyma:            none');
  return `${lines.join('\n')}\n`;
}

function indent(table: string): string {
  return table
    .trimEnd()
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// delete

async function deleteRuntime(call: RuntimeCall, record: RuntimeRecord, ctx: CliContext): Promise<void> {
  const { format, wait, timeoutMs } = call;
  const { name } = record;
  const ignoreNotFound = (e: unknown) => {
    if (!isNotFound(e)) throw e;
  };
  // Both at once: the control plane orders the rest. The lifecycle manager removes the modules while
  // the cluster still answers, and the infrastructure manager deletes the Shoot only after the Kyma is
  // gone (or its runtime unreachable), so a client that does not wait leaves nothing half-done.
  if (record.kyma) await ctx.kcp.delete(Kyma, { namespace: ctx.namespace, name }, { signal: ctx.signal }).catch(ignoreNotFound);
  if (record.runtime) await ctx.kcp.delete(Runtime, { namespace: ctx.namespace, name }, { signal: ctx.signal }).catch(ignoreNotFound);
  if (!wait) {
    return printResult(format, ctx, `deletion of runtime ${name} started: its modules are removed, then its cluster (follow it with \`kcp runtime wait ${name} --for deleted\`)`, name, []);
  }
  await waitRuntimeGone(ctx, name, timeoutMs);
  printResult(format, ctx, `runtime ${name} deleted`, name, []);
}

// ---------------------------------------------------------------------------------------------
// update

/** The runtime's new spec from the flags given; a one-line error for bad values or when nothing is asked. */
function updatedSpec(args: ParsedArgs, rt: RuntimeObject): RuntimeObject['spec'] {
  const spec = structuredClone(rt.spec);
  const worker = spec.shoot.provider.workers[0];
  const machineType = flagString(args, 'machine-type');
  if (machineType !== undefined) {
    checkMachineType(spec.shoot.provider.type, machineType);
    worker.machine = { ...worker.machine, type: machineType };
  }
  if (args.flags.has('min')) worker.minimum = flagInt(args, 'min', 0);
  if (args.flags.has('max')) worker.maximum = flagInt(args, 'max', 0);
  if ((worker.maximum ?? 0) < 1) throw new UsageError(`--max must be at least 1, got ${worker.maximum ?? 0}`);
  if ((worker.minimum ?? 0) > (worker.maximum ?? 0)) throw new UsageError(`--min ${worker.minimum ?? 0} is greater than --max ${worker.maximum ?? 0}`);
  const version = flagString(args, 'kubernetes-version');
  if (version !== undefined) {
    checkKubernetesVersion(version);
    spec.shoot.kubernetes = { ...spec.shoot.kubernetes, version };
  }
  const admins = flagString(args, 'admin');
  if (admins !== undefined) spec.security = { ...spec.security, administrators: administratorsFrom(admins) };
  const oidcGiven = Object.keys(OIDC_FLAGS).filter((f) => args.flags.has(f));
  if (oidcGiven.length > 0) {
    const apiServer = spec.shoot.kubernetes?.kubeAPIServer ?? {};
    const oidc = { ...(apiServer.oidcConfig ?? {}) };
    const issuer = flagString(args, 'oidc-issuer-url');
    if (issuer !== undefined) oidc.issuerURL = issuer;
    const set = (flag: string, apply: (v: string) => void) => {
      const v = flagString(args, flag);
      if (v !== undefined) apply(v);
    };
    set('oidc-client-id', (v) => (oidc.clientID = v));
    set('oidc-groups-claim', (v) => (oidc.groupsClaim = v));
    set('oidc-username-claim', (v) => (oidc.usernameClaim = v));
    set('oidc-username-prefix', (v) => (oidc.usernamePrefix = v));
    set('oidc-signing-algs', (v) => (oidc.signingAlgs = signingAlgs(v)));
    if (!oidc.issuerURL || !oidc.clientID) throw new UsageError('OIDC needs both --oidc-issuer-url and --oidc-client-id (the runtime has none yet)');
    spec.shoot.kubernetes = { ...spec.shoot.kubernetes, kubeAPIServer: { ...apiServer, oidcConfig: oidc } };
  }
  return spec;
}

/** Writes `change` into the current object, retrying on conflicts; returns the stored object and whether it changed. */
async function updateWithRetry<T extends RuntimeObject | KymaObject>(ctx: CliContext, kind: typeof Runtime | typeof Kyma, name: string, change: (o: T) => T | undefined): Promise<{ object: T; changed: boolean }> {
  for (let attempt = 0; ; attempt++) {
    const current = await ctx.kcp.get<T>(kind, { namespace: ctx.namespace, name }, { signal: ctx.signal });
    const next = change(current);
    if (!next) return { object: current, changed: false };
    try {
      return { object: await ctx.kcp.update<T>(next, { fieldManager: 'kcp-cli', signal: ctx.signal }), changed: true };
    } catch (e) {
      if (!isConflict(e) || attempt >= 4) throw e;
    }
  }
}

/** The update's flags that can be checked without the runtime; the flags asked for. */
function checkUpdate(args: ParsedArgs): string[] {
  const asked = Object.keys({ ...CLUSTER_FLAGS, ...OIDC_FLAGS }).filter((f) => args.flags.has(f));
  if (asked.length === 0) throw new UsageError(`nothing to update: give at least one of ${Object.keys({ ...CLUSTER_FLAGS, ...OIDC_FLAGS }).map((f) => `--${f}`).join(', ')}`);
  flagInt(args, 'min', 0);
  flagInt(args, 'max', 0);
  const version = flagString(args, 'kubernetes-version');
  if (version !== undefined) checkKubernetesVersion(version);
  const channel = flagString(args, 'channel');
  if (channel !== undefined && !/^[a-z]+$/.test(channel)) throw new UsageError(`invalid channel ${JSON.stringify(channel)}: use a release channel name such as regular or fast`);
  const admins = flagString(args, 'admin');
  if (admins !== undefined) administratorsFrom(admins);
  const issuer = flagString(args, 'oidc-issuer-url');
  if (issuer !== undefined && !/^https:\/\/\S+$/.test(issuer)) throw new UsageError(`--oidc-issuer-url must be an https URL, got ${JSON.stringify(issuer)}`);
  const algs = flagString(args, 'oidc-signing-algs');
  if (algs !== undefined) signingAlgs(algs);
  return asked;
}

/** `--oidc-signing-algs RS256,ES256`: algorithms Gardener accepts. */
function signingAlgs(text: string): (typeof oidcSigningAlgorithms)[number][] {
  const algs = text.split(',').map((a) => a.trim()).filter(Boolean);
  const bad = algs.find((a) => !(oidcSigningAlgorithms as readonly string[]).includes(a));
  if (bad !== undefined || algs.length === 0) throw new UsageError(`unknown signing algorithm ${JSON.stringify(bad ?? text)} for --oidc-signing-algs: use ${oidcSigningAlgorithms.join(', ')}`);
  return algs as (typeof oidcSigningAlgorithms)[number][];
}

async function update(call: RuntimeCall, record: RuntimeRecord, ctx: CliContext): Promise<void> {
  const { args, format, wait, timeoutMs } = call;
  const { name } = record;
  const asked = call.asked ?? [];
  const rt = record.runtime;
  const clusterAsked = asked.some((f) => f !== 'channel');
  if (clusterAsked && !rt) throw new UsageError(`runtime ${name} has no Runtime (only a Kyma): only --channel can be changed`);
  if (rt?.metadata.deletionTimestamp) throw new UsageError(`runtime ${name} is being deleted`);
  const channel = flagString(args, 'channel');
  if (channel !== undefined && !record.kyma) throw new UsageError(`runtime ${name} has no Kyma: --channel cannot be changed`);
  // Validate everything before writing anything.
  const spec = rt && clusterAsked ? updatedSpec(args, rt) : undefined;

  const changes: string[] = [];
  let runtime = rt;
  if (spec) {
    const result = await updateWithRetry<RuntimeObject>(ctx, Runtime, name, (current) => {
      const next = updatedSpec(args, current);
      return isDeepStrictEqual(next, current.spec) ? undefined : { ...current, spec: next };
    });
    runtime = result.object;
    if (result.changed) changes.push('cluster');
  }
  let kyma = record.kyma;
  if (channel !== undefined && (await switchRuntimeChannel(ctx, record, channel, wait ? timeoutMs : 0))) {
    changes.push(`channel ${channel}`);
    kyma = (await lookupRuntime(ctx, name))?.kyma ?? kyma;
  }
  if (changes.length === 0) return printResult(format, ctx, `runtime ${name} unchanged: it already has what was asked`, name, [runtime, kyma]);
  if (!wait) return printResult(format, ctx, `runtime ${name} updated (${changes.join(', ')})`, name, [runtime, kyma]);
  if (isTable(format)) ctx.output.out(`runtime ${name} updated (${changes.join(', ')})\n`);
  await waitRuntimeReady(ctx, name, timeoutMs, { channel, kymaOnly: !rt });
  const after = await lookupRuntime(ctx, name);
  printResult(format, ctx, `runtime ${name} is Ready with the change`, name, [after?.runtime, after?.kyma]);
}

/**
 * Switches the channel in the runtime's own Kyma, as its admin would: once the runtime Kyma exists
 * it is the source of truth, and the KCP Kyma's channel follows it (a write to the KCP Kyma would be
 * overwritten). `waitMs`: how long to wait for the lifecycle manager to create the runtime Kyma.
 */
async function switchRuntimeChannel(ctx: CliContext, record: RuntimeRecord, channel: string, waitMs: number): Promise<boolean> {
  const remote = await runtimeClient(ctx, record);
  try {
    const kyma = await remoteKyma(ctx, remote, record, waitMs);
    return await editRemoteKyma(remote, kyma, (spec) => (spec.channel === channel ? undefined : { ...spec, channel }), ctx.signal);
  } catch (e) {
    throw new Error(`runtime ${record.name}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  } finally {
    remote.close();
  }
}

// ---------------------------------------------------------------------------------------------
// retry

async function retry(call: RuntimeCall, record: RuntimeRecord, ctx: CliContext): Promise<void> {
  const { format, wait, timeoutMs } = call;
  const { name } = record;
  const rt = record.runtime;
  if (!rt) throw new UsageError(`runtime ${name} has no Runtime (only a Kyma): there is no cluster operation to retry`);
  const state = runtimeState(rt);
  if (state !== RuntimeStateFailed) throw new Error(`runtime ${name} is ${state}, not Failed: there is nothing to retry`);
  const failedBefore = latestCondition(rt.status?.conditions);
  // Only a Shoot operation that Gardener gave up on, or a Shoot patch it refused, can be retried; any
  // other failure (a spec that cannot be converted) needs a changed Runtime.
  const failing = rt.status?.conditions?.find((c) => c.status === 'False');
  if (!failing || !RETRYABLE_REASONS.has(failing.reason)) {
    throw new Error(`runtime ${name} failed with ${failing?.reason ?? 'no reason'}, which a retry cannot fix: ${failing?.message ?? ''} (change the Runtime with \`kcp runtime update\`)`);
  }
  const askedAt = new Date((ctx.now ?? Date.now)()).toISOString();
  const patched = await ctx.kcp.patch<RuntimeObject>(Runtime, { namespace: ctx.namespace, name }, 'merge', { metadata: { annotations: { [AnnotationRetryRequested]: askedAt } } }, { fieldManager: 'kcp-cli', signal: ctx.signal });
  const why = failedBefore?.message;
  if (!wait) return printResult(format, ctx, `retry of runtime ${name} requested${why ? ` (it failed with: ${why})` : ''}; follow it with \`kcp runtime wait ${name}\``, name, [patched]);
  if (isTable(format)) ctx.output.out(`retry of runtime ${name} requested\n`);
  await waitRuntimeReady(ctx, name, timeoutMs, { failedBefore });
  const after = await lookupRuntime(ctx, name);
  printResult(format, ctx, `runtime ${name} is Ready`, name, [after?.runtime, after?.kyma]);
}

// ---------------------------------------------------------------------------------------------
// rotate

async function rotate(call: RuntimeCall, record: RuntimeRecord, ctx: CliContext): Promise<void> {
  const { format, wait, timeoutMs } = call;
  const { name, runtimeID } = record;
  const key = { namespace: ctx.namespace, name: runtimeID };
  const cluster = await findObject<GardenerClusterObject>(ctx.kcp, GardenerCluster, key, { signal: ctx.signal });
  if (!cluster) throw new Error(`runtime ${name} has no GardenerCluster ${ctx.namespace}/${runtimeID} yet: its kubeconfig is created once the cluster is provisioned`);
  const secretKey = { namespace: ctx.namespace, name: kubeconfigSecretName(runtimeID) };
  // The kubeconfig itself tells a rotation apart (its last-sync annotation has whole seconds only, and
  // may not move when the Secret was synced within the same second).
  const kubeconfig = async (signal?: AbortSignal) => (await findObject<SecretObject>(ctx.kcp, SECRET, secretKey, { signal }))?.data?.[DefaultKubeconfigSecretKey];
  const before = await kubeconfig(ctx.signal);
  await ctx.kcp.patch(GardenerCluster, key, 'merge', { metadata: { annotations: { [AnnotationForceKubeconfigRotation]: 'true' } } }, { fieldManager: 'kcp-cli', signal: ctx.signal });
  if (!wait) return printResult(format, ctx, `rotation of runtime ${name}'s kubeconfig requested`, name, []);
  await waitInContext(ctx, `the new kubeconfig of runtime ${name}`, timeoutMs, async (signal) => {
    const gc = await findObject<GardenerClusterObject>(ctx.kcp, GardenerCluster, key, { signal });
    if (!gc) return { status: 'GardenerCluster not found', failed: `runtime ${name}'s GardenerCluster disappeared while rotating` };
    const synced = await kubeconfig(signal);
    const done = !gc.metadata.annotations?.[AnnotationForceKubeconfigRotation] && synced !== undefined && synced !== before;
    return { status: done ? 'kubeconfig rotated' : `rotating: GardenerCluster ${gc.status?.state ?? 'Pending'}`, done };
  });
  printResult(format, ctx, `runtime ${name}'s kubeconfig rotated`, name, []);
}

// ---------------------------------------------------------------------------------------------
// wait

async function waitCommand(call: RuntimeCall, record: RuntimeRecord, ctx: CliContext): Promise<void> {
  const { format, timeoutMs } = call;
  if (call.waitFor === 'deleted') {
    await waitRuntimeGone(ctx, record.name, timeoutMs);
    return printResult(format, ctx, `runtime ${record.name} deleted`, record.name, []);
  }
  await waitRuntimeReady(ctx, record.name, timeoutMs, { kymaOnly: !record.runtime });
  const after = await lookupRuntime(ctx, record.name);
  printResult(format, ctx, `runtime ${record.name} is Ready`, record.name, [after?.runtime, after?.kyma]);
}

// ---------------------------------------------------------------------------------------------

/** A `kcp runtime` call with its input checked: nothing here needs the control plane. */
interface RuntimeCall {
  args: ParsedArgs;
  verb: string;
  positionals: string[];
  format: OutputFormat;
  wait: boolean;
  timeoutMs: number;
  request?: ValidRuntimeRequest;
  state?: string;
  waitFor?: 'ready' | 'deleted';
  /** update: the flags asked for. */
  asked?: string[];
}

/** Checks the arguments of a `kcp runtime` call; every mistake is a UsageError before anything is sent. */
export function prepareRuntimeCall(args: ParsedArgs): RuntimeCall {
  const { format, positionals } = takeOutputFormat(args);
  const given = positionals[0];
  if (given === undefined) throw new UsageError(`a subcommand is required: ${VERBS} (see kcp runtime --help)`);
  const verb = ALIASES[given] ?? given;
  if (!(verb in VERB_FLAGS)) {
    const near = closestFlag(given, Object.keys(VERB_FLAGS));
    throw new UsageError(`unknown subcommand ${JSON.stringify(given)}: ${near ? `did you mean ${near}? ` : ''}use ${VERBS}`);
  }
  const wait = switchOn(args, 'wait');
  if (args.flags.has('timeout') && !wait && verb !== 'wait') throw new UsageError(`--timeout goes with --wait: kcp runtime ${verb} NAME --wait --timeout D`);
  const call: RuntimeCall = { args, verb, positionals, format, wait, timeoutMs: timeoutFlag(args, DEFAULT_TIMEOUT_MS) };
  const synopsis = `kcp runtime ${verb} NAME`;
  switch (verb) {
    case 'create':
      call.request = createRequest(args, positionals);
      break;
    case 'list':
      rejectExtra(positionals, 1, 'kcp runtime list [--state STATE]');
      call.state = stateFilter(args);
      break;
    case 'wait': {
      const target = flagString(args, 'for', 'ready');
      if (target !== 'ready' && target !== 'deleted') throw new UsageError(`--for must be ready or deleted, got ${JSON.stringify(target)}`);
      call.waitFor = target;
      break;
    }
    case 'update':
      call.asked = checkUpdate(args);
      break;
  }
  if (verb !== 'create' && verb !== 'list') {
    if (!positionals[1]) throw new UsageError(`a runtime name is required: ${synopsis}`);
    rejectExtra(positionals, 2, synopsis);
  }
  return call;
}

/** Carries out a checked call against the control plane. */
async function performRuntimeCall(call: RuntimeCall, ctx: CliContext): Promise<void> {
  if (call.verb === 'create') return create(call, ctx);
  if (call.verb === 'list') return listCommand(call, ctx);
  const record = await requireRuntime(ctx, call.positionals[1], `kcp runtime ${call.verb} NAME`);
  switch (call.verb) {
    case 'describe':
      if (call.format === 'name') ctx.output.out(renderNames('runtime', [record.name]));
      else if (isTable(call.format)) ctx.output.out(describe(record, ctx));
      else ctx.output.out(renderData({ name: record.name, runtimeID: record.runtimeID, runtime: record.runtime && forDisplay(record.runtime), kyma: record.kyma && forDisplay(record.kyma) }, call.format));
      return;
    case 'update':
      return update(call, record, ctx);
    case 'retry':
      return retry(call, record, ctx);
    case 'rotate':
      return rotate(call, record, ctx);
    case 'wait':
      return waitCommand(call, record, ctx);
    default:
      return deleteRuntime(call, record, ctx);
  }
}

export async function runRuntime(args: ParsedArgs, ctx: CliContext): Promise<void> {
  return performRuntimeCall(prepareRuntimeCall(args), ctx);
}

export const command: Command = {
  summary: 'create, list, describe, update, retry, rotate credentials of, wait for and delete runtimes',
  usage: RUNTIME_USAGE,
  flags: (verb) => (verb === undefined ? undefined : VERB_FLAGS[ALIASES[verb] ?? verb]),
  run(args) {
    const call = prepareRuntimeCall(args);
    return withKcp(args, (ctx) => performRuntimeCall(call, ctx));
  },
};
