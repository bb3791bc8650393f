// `kcp runtime create|list|describe|delete`: runtimes for people. A runtime is a Runtime (the cluster,
// provisioned by the infrastructure manager) plus its Kyma (the modules, managed by the lifecycle
// manager), both in `kcp-system` and named after the runtime ID, as the environment broker creates them.
import { Runtime, RuntimeStateFailed, RuntimeStateReady, type RuntimeObject } from '../api/infrastructuremanager/index.js';
import { DEFAULT_CHANNEL, Kyma, type KymaObject, type ModuleStatus, States } from '../api/operator/index.js';
import { findObject, isAlreadyExists, isNoKindMatch, isNotFound } from '../runtime/client/index.js';
import { flagInt, flagString, type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, withKcp } from './connect.js';
import { lookupRuntime, requireRuntime, type RuntimeRecord } from './kubeconfig.js';
import { age, forDisplay, type OutputFormat, renderData, renderTable, takeOutputFormat } from './output.js';
import { timeoutFlag } from './duration.js';
import { waitWithProgress } from './progress.js';
import { buildRuntimeAndKyma, providerProfiles, validateRuntimeRequest } from './runtime-spec.js';

export const RUNTIME_USAGE = `Usage:
  kcp runtime create NAME --provider aws|azure|gcp|openstack|alicloud --region REGION
                     [--admin EMAIL[,EMAIL...]] [--machine-type TYPE] [--min N] [--max N]
                     [--purpose evaluation|testing|development|production|infrastructure]
                     [--platform-region cf-eu10] [--global-account ID] [--subaccount ID]
                     [--channel regular] [--wait [--timeout 10m]]
      Creates the Runtime and its Kyma as the environment broker would. --wait shows progress until
      the runtime is Ready (cluster provisioned, modules reconciled) or Failed.
  kcp runtime list
  kcp runtime describe NAME
  kcp runtime delete NAME [--wait [--timeout 10m]]
      Deletes the Kyma (its modules are removed from the cluster) and the Runtime (the cluster goes).
  Common flags: -o json|yaml, --namespace kcp-system; the control plane: --kubeconfig KCP_FILE, else
  --data-dir DIR (DIR/kcp.kubeconfig), else $KUBECONFIG, else .kcp/kcp.kubeconfig.`;

const SWITCHES: ReadonlySet<string> = new Set(['wait', 'help']);
const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_ADMIN = 'admin@example.com';

function switchOn(args: ParsedArgs, name: string): boolean {
  const v = args.flags.get(name);
  return v !== undefined && v !== 'false';
}

function rejectExtra(positionals: string[], from: number, synopsis: string): void {
  if (positionals.length > from) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[from])}: ${synopsis}`);
}

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
  const state = rt.metadata.deletionTimestamp ? 'Terminating' : (rt.status?.state ?? 'Pending');
  const message = latestCondition(rt.status?.conditions)?.message;
  const op = rt.status?.shootLastOperation;
  const shoot = op && op.state !== 'Succeeded' ? ` [shoot: ${op.type} ${op.state} ${op.progress}%]` : '';
  return `runtime ${state}${message ? `: ${message}` : ''}${shoot}`;
}

/** `Kyma Processing: not all modules are in ready state`. */
export function kymaProgress(kyma: KymaObject | undefined): string {
  if (!kyma) return 'Kyma not found';
  const state = kyma.metadata.deletionTimestamp ? States.Deleting : kyma.status?.state || States.Processing;
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

export interface RuntimeSummary {
  name: string;
  provider: string;
  region: string;
  state: string;
  created?: string;
  kymaState: string;
  modules: { name: string; state: string; channel?: string; version?: string }[];
}

function summarize(rt: RuntimeObject | undefined, kyma: KymaObject | undefined, name: string): RuntimeSummary {
  return {
    name,
    provider: rt?.spec.shoot.provider.type ?? '-',
    region: rt?.spec.shoot.region ?? '-',
    state: rt ? (rt.metadata.deletionTimestamp ? 'Terminating' : (rt.status?.state ?? 'Pending')) : '-',
    created: rt?.metadata.creationTimestamp ?? kyma?.metadata.creationTimestamp,
    kymaState: kyma ? (kyma.metadata.deletionTimestamp ? States.Deleting : kyma.status?.state || States.Processing) : '-',
    modules: (kyma?.status?.modules ?? []).map((m: ModuleStatus) => ({ name: m.name, state: m.state || States.Processing, channel: m.channel, version: m.version })),
  };
}

// ---------------------------------------------------------------------------------------------
// create

async function create(args: ParsedArgs, positionals: string[], format: OutputFormat, ctx: CliContext): Promise<void> {
  const synopsis = 'kcp runtime create NAME --provider P --region R';
  const name = positionals[1];
  if (!name) throw new UsageError(`a runtime name is required: ${synopsis}`);
  rejectExtra(positionals, 2, synopsis);
  const provider = flagString(args, 'provider');
  if (!provider) throw new UsageError(`--provider is required: one of ${Object.keys(providerProfiles).join(', ')}`);
  const region = flagString(args, 'region');
  if (!region) throw new UsageError(`--region is required, e.g. --region ${providerProfiles[provider as keyof typeof providerProfiles]?.regions[0] ?? 'eu-central-1'}`);
  const maximum = flagInt(args, 'max', 20);
  const request = validateRuntimeRequest({
    name,
    provider,
    region,
    administrators: (flagString(args, 'admin', DEFAULT_ADMIN) ?? DEFAULT_ADMIN).split(',').map((a) => a.trim()).filter(Boolean),
    machineType: flagString(args, 'machine-type'),
    minimum: flagInt(args, 'min', Math.min(3, maximum)),
    maximum,
    purpose: flagString(args, 'purpose', 'production') ?? 'production',
    platformRegion: flagString(args, 'platform-region', 'cf-eu10') ?? 'cf-eu10',
    globalAccountID: flagString(args, 'global-account', 'local-global-account') ?? 'local-global-account',
    subaccountID: flagString(args, 'subaccount', `local-subaccount-${name}`) ?? name,
    channel: flagString(args, 'channel', DEFAULT_CHANNEL) ?? DEFAULT_CHANNEL,
  });
  const wait = switchOn(args, 'wait');
  const timeoutMs = timeoutFlag(args, DEFAULT_TIMEOUT_MS);
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
  if (format === 'table') {
    ctx.output.out(`runtime ${name} created: ${request.provider} ${request.region}, shoot ${runtime.spec.shoot.name}, channel ${kyma.spec.channel}\n`);
  }
  if (!wait) {
    if (format !== 'table') ctx.output.out(renderData({ apiVersion: 'v1', kind: 'List', items: [forDisplay(createdRuntime), forDisplay(createdKyma)] }, format));
    return;
  }
  await waitRuntimeReady(ctx, name, timeoutMs);
  if (format === 'table') ctx.output.out(`runtime ${name} is Ready\n`);
  else {
    const record = await lookupRuntime(ctx, name);
    ctx.output.out(renderData({ apiVersion: 'v1', kind: 'List', items: [record?.runtime, record?.kyma].filter((o) => o !== undefined).map(forDisplay) }, format));
  }
}

/** Waits until the Runtime is Ready and its Kyma has reconciled (Ready or Warning); fails when the Runtime fails. */
export async function waitRuntimeReady(ctx: CliContext, name: string, timeoutMs: number): Promise<void> {
  await waitWithProgress({
    what: `runtime ${name} to become Ready`,
    output: ctx.output,
    signal: ctx.signal,
    timeoutMs,
    pollMs: ctx.pollMs,
    now: ctx.now,
    async observe(signal) {
      const rt = await findObject<RuntimeObject>(ctx.kcp, Runtime, { namespace: ctx.namespace, name }, { signal });
      if (!rt) return { status: 'Runtime not found', failed: `runtime ${name} disappeared while waiting for it` };
      if (rt.status?.state === RuntimeStateFailed) {
        const why = latestCondition(rt.status.conditions)?.message ?? 'no reason given';
        return { status: runtimeProgress(rt), failed: `runtime ${name} failed: ${why}` };
      }
      if (rt.status?.state !== RuntimeStateReady) return { status: runtimeProgress(rt) };
      const kyma = await findObject<KymaObject>(ctx.kcp, Kyma, { namespace: ctx.namespace, name }, { signal });
      const kymaState = kyma?.status?.state;
      const settled = kymaState === States.Ready || kymaState === States.Warning;
      return { status: `runtime Ready, ${kymaProgress(kyma)}`, done: settled };
    },
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

async function listCommand(format: OutputFormat, ctx: CliContext): Promise<void> {
  const all = await loadRuntimes(ctx);
  if (format !== 'table') {
    ctx.output.out(renderData(all.map((r) => summarize(r.runtime, r.kyma, r.name)), format));
    return;
  }
  if (all.length === 0) {
    ctx.output.out(`No runtimes in ${ctx.namespace}.\n`);
    return;
  }
  const now = (ctx.now ?? Date.now)();
  const rows = all.map((r) => {
    const sum = summarize(r.runtime, r.kyma, r.name);
    return [sum.name, sum.provider, sum.region, sum.state, age(sum.created, now), modulesSummary(r.kyma)];
  });
  ctx.output.out(renderTable(['NAME', 'PROVIDER', 'REGION', 'STATE', 'AGE', 'MODULES'], rows));
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
    field('State', rt.metadata.deletionTimestamp ? 'Terminating' : (rt.status?.state ?? 'Pending'));
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
    lines.push(`  Channel: ${kyma.spec?.channel ?? DEFAULT_CHANNEL}   State: ${kyma.metadata.deletionTimestamp ? States.Deleting : kyma.status?.state || States.Processing}${kyma.status?.lastOperation ? `   Last: ${kyma.status.lastOperation.operation}` : ''}`);
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

async function deleteRuntime(args: ParsedArgs, record: RuntimeRecord, format: OutputFormat, ctx: CliContext): Promise<void> {
  const wait = switchOn(args, 'wait');
  const timeoutMs = timeoutFlag(args, DEFAULT_TIMEOUT_MS);
  const { name } = record;
  const ignoreNotFound = (e: unknown) => {
    if (!isNotFound(e)) throw e;
  };
  /** Deletes one object and, with --wait, shows its progress until it is gone. */
  const deleteAndWait = async <T extends KymaObject | RuntimeObject>(kind: typeof Kyma | typeof Runtime, label: string, progress: (o: T) => string): Promise<void> => {
    await ctx.kcp.delete(kind, { namespace: ctx.namespace, name }, { signal: ctx.signal }).catch(ignoreNotFound);
    if (!wait) return;
    await waitWithProgress({
      what: `${label} ${name} to be deleted`,
      output: ctx.output,
      signal: ctx.signal,
      timeoutMs,
      pollMs: ctx.pollMs,
      now: ctx.now,
      async observe(signal) {
        const o = await findObject<T>(ctx.kcp, kind, { namespace: ctx.namespace, name }, { signal });
        return o ? { status: progress(o) } : { status: `${label} deleted`, done: true };
      },
    });
  };
  // The Kyma first, so that the lifecycle manager removes the modules while the cluster still answers
  // (the broker deprovisions in this order too).
  if (record.kyma) await deleteAndWait<KymaObject>(Kyma, 'Kyma', kymaProgress);
  if (record.runtime) await deleteAndWait<RuntimeObject>(Runtime, 'runtime', runtimeProgress);
  const message = wait ? `runtime ${name} deleted` : `deletion of runtime ${name} started`;
  if (format === 'table') ctx.output.out(`${message}\n`);
  else ctx.output.out(renderData({ name, deleted: wait, message }, format));
}

// ---------------------------------------------------------------------------------------------

export async function runRuntime(args: ParsedArgs, ctx: CliContext): Promise<void> {
  const { format, positionals } = takeOutputFormat(args);
  const verb = positionals[0];
  switch (verb) {
    case 'create':
      return create(args, positionals, format, ctx);
    case 'list':
    case 'ls': {
      rejectExtra(positionals, 1, 'kcp runtime list');
      return listCommand(format, ctx);
    }
    case 'describe':
    case 'get': {
      rejectExtra(positionals, 2, 'kcp runtime describe NAME');
      const record = await requireRuntime(ctx, positionals[1], 'kcp runtime describe NAME');
      if (format === 'table') ctx.output.out(describe(record, ctx));
      else ctx.output.out(renderData({ name: record.name, runtimeID: record.runtimeID, runtime: record.runtime && forDisplay(record.runtime), kyma: record.kyma && forDisplay(record.kyma) }, format));
      return;
    }
    case 'delete':
    case 'rm': {
      rejectExtra(positionals, 2, 'kcp runtime delete NAME');
      const record = await requireRuntime(ctx, positionals[1], 'kcp runtime delete NAME');
      return deleteRuntime(args, record, format, ctx);
    }
    case undefined:
      throw new UsageError('a subcommand is required: create, list, describe or delete (see kcp runtime --help)');
    default:
      throw new UsageError(`unknown subcommand ${JSON.stringify(verb)}: use create, list, describe or delete`);
  }
}

export const command: Command = {
  summary: 'create, list, describe and delete runtimes',
  usage: RUNTIME_USAGE,
  switches: SWITCHES,
  run: (args) => withKcp(args, (ctx) => runRuntime(args, ctx)),
};
