// `kcp module list|enable|disable|push`: the module catalog, and modules of a runtime. Enabling and
// disabling edit the runtime's own Kyma `kyma-system/default`, as a runtime admin does (with the
// runtime's kubeconfig); the lifecycle manager carries the change into the KCP Kyma and installs or
// removes the module. `push` is for module teams (src/cli/module-push.ts).
import {
  DEFAULT_CHANNEL,
  isEnabled,
  Kyma,
  type KymaModule,
  type KymaObject,
  Labels,
  Manifest,
  ModuleConfig,
  type ModuleConfigObject,
  ModuleReleaseMeta,
  type ModuleReleaseMetaObject,
  SyncResource,
  type SyncResourceObject,
  ModuleTemplate,
  type ModuleTemplateObject,
  States,
} from '../api/operator/index.js';
import { type Client, findObject } from '../runtime/client/index.js';
import { closestFlag, type FlagTable, flagString, type ParsedArgs, switchOn, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, KCP_FLAGS, withKcp } from './connect.js';
import { requireRuntime, type RuntimeRecord } from './kubeconfig.js';
import { editRemoteKyma, remoteKyma, runtimeClient } from './runtime-kyma.js';
import { MODULE_PUSH_FLAGS, MODULE_PUSH_USAGE, runModulePush } from './module-push.js';
import { isTable, type OutputFormat, renderData, renderNames, renderTable, takeOutputFormat } from './output.js';
import { kymaObserved } from './runtime.js';
import { timeoutFlag } from './duration.js';
import { waitInContext } from './progress.js';

export const MODULE_USAGE = `Usage:
  kcp module list [RUNTIME]
      Without a runtime: the module catalog (channels and their versions, beta/internal/mandatory).
      With one (also as --runtime RUNTIME): the runtime's modules with channel, version and state, the state of each
      module's ModuleConfig (CONFIG) and of its SyncResources (SYNC) (docs/module-sync.md).
  kcp module enable RUNTIME MODULE [--channel C | --version V] [--wait [--timeout 5m]]
  kcp module disable RUNTIME MODULE [--wait [--timeout 5m]]
      Edit the runtime's Kyma kyma-system/default in the runtime cluster, as a runtime admin would.
      --wait: until the module is Ready (enable) or removed (disable) in the control plane.
${MODULE_PUSH_USAGE.replace(/^Usage:\n/, '')}
      --wait ends at once with exit 1 when the module goes Error or Warning, or when the lifecycle
      manager refuses the change (a downgrade), with its reason.
  Common flags: -o table|wide|json|yaml|name (name: module/NAME lines), -n|--namespace kcp-system;
  the control plane: --kubeconfig KCP_FILE, else --data-dir DIR (DIR/kcp.kubeconfig), else
  $KUBECONFIG, else .kcp/kcp.kubeconfig.`;

const VERB_FLAGS: Record<string, FlagTable> = {
  list: { ...KCP_FLAGS, runtime: 'value' },
  enable: { ...KCP_FLAGS, channel: 'value', version: 'value', wait: 'switch', timeout: 'value' },
  disable: { ...KCP_FLAGS, wait: 'switch', timeout: 'value' },
  push: MODULE_PUSH_FLAGS,
};
const ALIASES: Record<string, string> = { ls: 'list' };
const DEFAULT_TIMEOUT_MS = 5 * 60_000;

// ---------------------------------------------------------------------------------------------
// The catalog: ModuleReleaseMetas and ModuleTemplates of the KCP.

export interface CatalogEntry {
  name: string;
  /** Channel -> version. */
  channels: Record<string, string>;
  /** Versions with a ModuleTemplate, ascending. */
  versions: string[];
  beta: boolean;
  internal: boolean;
  /** The version installed everywhere, for a mandatory module. */
  mandatory?: string;
}

function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x).localeCompare(String(y));
  }
  return 0;
}

export async function loadCatalog(ctx: CliContext): Promise<CatalogEntry[]> {
  const [metas, templates] = await Promise.all([
    ctx.kcp.list<ModuleReleaseMetaObject>(ModuleReleaseMeta, { namespace: ctx.namespace, signal: ctx.signal }),
    ctx.kcp.list<ModuleTemplateObject>(ModuleTemplate, { namespace: ctx.namespace, signal: ctx.signal }),
  ]);
  const versions = new Map<string, Set<string>>();
  for (const t of templates.items) {
    const module = t.spec?.moduleName ?? t.metadata.labels?.[Labels.ModuleName];
    if (!module || !t.spec?.version) continue;
    if (!versions.has(module)) versions.set(module, new Set());
    versions.get(module)?.add(t.spec.version);
  }
  return metas.items
    .map((m): CatalogEntry => {
      const name = m.spec?.moduleName ?? m.metadata.name ?? '';
      return {
        name,
        channels: Object.fromEntries((m.spec?.channels ?? []).map((c) => [c.channel, c.version])),
        versions: [...(versions.get(name) ?? [])].sort(compareVersions),
        beta: m.spec?.beta === true,
        internal: m.spec?.internal === true,
        mandatory: m.spec?.mandatory?.version,
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

function flagsOf(e: CatalogEntry): string {
  return [e.mandatory ? 'mandatory' : '', e.beta ? 'beta' : '', e.internal ? 'internal' : ''].filter(Boolean).join(',') || '-';
}

function printCatalog(catalog: CatalogEntry[], format: OutputFormat, ctx: CliContext): void {
  if (format === 'name') return ctx.output.out(renderNames('module', catalog.map((e) => e.name)));
  if (!isTable(format)) return ctx.output.out(renderData(catalog, format));
  if (catalog.length === 0) return ctx.output.out(`No modules in the catalog (${ctx.namespace}); publish one with \`kcp module push\`.\n`);
  const rows = catalog.map((e) => [
    e.name,
    e.mandatory ? `(mandatory) ${e.mandatory}` : Object.entries(e.channels).map(([c, v]) => `${c}=${v}`).join(', ') || '-',
    e.versions.join(', ') || '-',
    flagsOf(e),
  ]);
  ctx.output.out(renderTable(['MODULE', 'CHANNELS', 'VERSIONS', 'FLAGS'], rows));
}

/** The catalog entry of a module that can be enabled; one-line errors otherwise. */
async function requireModule(ctx: CliContext, module: string, record: RuntimeRecord): Promise<CatalogEntry> {
  const catalog = await loadCatalog(ctx);
  const entry = catalog.find((e) => e.name === module);
  const selectable = catalog.filter((e) => !e.mandatory).map((e) => e.name);
  if (!entry) {
    throw new UsageError(`unknown module ${JSON.stringify(module)}: ${selectable.length ? `available modules: ${selectable.join(', ')}` : 'the catalog is empty'}`);
  }
  if (entry.mandatory) throw new UsageError(`module ${module} is mandatory: it is installed in every runtime (version ${entry.mandatory}) and cannot be enabled or disabled`);
  const labels = record.kyma?.metadata.labels ?? {};
  if (entry.beta && !isEnabled(labels[Labels.Beta])) throw new UsageError(`module ${module} is beta: runtime ${record.name} does not admit beta modules (Kyma label ${Labels.Beta}=true)`);
  if (entry.internal && !isEnabled(labels[Labels.Internal])) throw new UsageError(`module ${module} is internal: runtime ${record.name} does not admit internal modules (Kyma label ${Labels.Internal}=true)`);
  return entry;
}

// ---------------------------------------------------------------------------------------------
// A runtime's modules.

export interface RuntimeModule {
  name: string;
  channel?: string;
  version?: string;
  state: string;
  message?: string;
  /** The module's ModuleConfig in the KCP (modules whose template opts in). */
  moduleConfig?: { name: string; state: string };
  /** SyncResources of the module for this runtime. */
  syncResources?: { name: string; state: string; message?: string }[];
}

function runtimeModules(kyma: KymaObject | undefined): RuntimeModule[] {
  const status = kyma?.status?.modules ?? [];
  const out: RuntimeModule[] = status.map((m) => ({ name: m.name, channel: m.channel, version: m.version, state: m.state || States.Processing, message: m.message }));
  for (const m of kyma?.spec?.modules ?? []) {
    if (!status.some((s) => s.name === m.name)) out.push({ name: m.name, channel: m.channel, version: m.version, state: States.Processing, message: 'not reconciled yet' });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** Adds each module's ModuleConfig and SyncResources (module resource synchronization, docs/module-sync.md). */
async function withSyncState(ctx: CliContext, kyma: string, modules: RuntimeModule[]): Promise<void> {
  const selector = `${Labels.KymaName}=${kyma}`;
  const [configs, syncs] = await Promise.all([
    ctx.kcp.list<ModuleConfigObject>(ModuleConfig, { namespace: ctx.namespace, labelSelector: selector, signal: ctx.signal }),
    ctx.kcp.list<SyncResourceObject>(SyncResource, { namespace: ctx.namespace, labelSelector: selector, signal: ctx.signal }),
  ]);
  for (const m of modules) {
    const config = configs.items.find((c) => c.spec.module === m.name);
    if (config) m.moduleConfig = { name: config.metadata.name ?? '', state: config.status?.state || States.Processing };
    const own = syncs.items.filter((s) => s.spec.module === m.name);
    if (own.length > 0) m.syncResources = own.map((s) => ({ name: s.metadata.name ?? '', state: s.status?.state || States.Processing, message: s.status?.lastOperation?.operation }));
  }
}

/** One cell for a module's SyncResources: `Ready` when all are, else the states with their counts. */
function syncCell(m: RuntimeModule): string {
  const list = m.syncResources ?? [];
  if (list.length === 0) return '-';
  const counts = new Map<string, number>();
  for (const s of list) counts.set(s.state, (counts.get(s.state) ?? 0) + 1);
  return [...counts].map(([state, n]) => (list.length === 1 ? state : `${state} ${n}/${list.length}`)).join(', ');
}

async function printRuntimeModules(record: RuntimeRecord, format: OutputFormat, ctx: CliContext): Promise<void> {
  const modules = runtimeModules(record.kyma);
  if (record.kyma?.metadata.name) await withSyncState(ctx, record.kyma.metadata.name, modules);
  if (format === 'name') return ctx.output.out(renderNames('module', modules.map((m) => m.name)));
  if (!isTable(format)) return ctx.output.out(renderData(modules, format));
  if (modules.length === 0) return ctx.output.out(`No modules enabled in runtime ${record.name}.\n`);
  ctx.output.out(
    renderTable(
      ['NAME', 'CHANNEL', 'VERSION', 'STATE', 'CONFIG', 'SYNC', 'MESSAGE'],
      modules.map((m) => [m.name, m.channel ?? '-', m.version ?? '-', m.state, m.moduleConfig?.state ?? '-', syncCell(m), m.message ?? '']),
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Editing the runtime Kyma.

/** Applies `edit` to the runtime Kyma's modules (undefined: nothing to change); returns whether anything changed. */
function editRemoteModules(remote: Client, kyma: KymaObject, edit: (modules: KymaModule[]) => KymaModule[] | undefined, signal?: AbortSignal): Promise<boolean> {
  return editRemoteKyma(
    remote,
    kyma,
    (spec) => {
      const modules = edit(spec.modules ?? []);
      return modules ? { ...spec, modules } : undefined;
    },
    signal,
  );
}

async function kcpKyma(ctx: CliContext, name: string, signal?: AbortSignal): Promise<KymaObject | undefined> {
  return findObject<KymaObject>(ctx.kcp, Kyma, { namespace: ctx.namespace, name }, { signal });
}

async function enable(args: ParsedArgs, positionals: string[], format: OutputFormat, timeoutMs: number, ctx: CliContext): Promise<void> {
  const synopsis = 'kcp module enable RUNTIME MODULE [--channel C | --version V]';
  const [, runtimeName, module] = positionals;
  const channel = flagString(args, 'channel');
  const version = flagString(args, 'version');
  const wait = switchOn(args, 'wait');

  const record = await requireRuntime(ctx, runtimeName, synopsis);
  const entry = await requireModule(ctx, module, record);
  if (channel && !(channel in entry.channels)) {
    throw new UsageError(`module ${module} has no channel ${JSON.stringify(channel)}: channels ${Object.keys(entry.channels).join(', ') || '(none)'}`);
  }
  if (version && !entry.versions.includes(version)) {
    throw new UsageError(`module ${module} has no version ${JSON.stringify(version)}: versions ${entry.versions.join(', ') || '(none)'}`);
  }

  const wanted: KymaModule = { name: module, ...(channel ? { channel } : {}), ...(version ? { version } : {}) };
  const remote = await runtimeClient(ctx, record);
  let changed: boolean;
  let effectiveChannel = channel;
  try {
    const kyma = await remoteKyma(ctx, remote, record, wait ? timeoutMs : 0);
    // The runtime's channel is its Kyma's (the KCP Kyma follows it, perhaps not yet).
    effectiveChannel = channel ?? kyma.spec?.channel;
    if (!version && !channel && effectiveChannel && !(effectiveChannel in entry.channels)) {
      throw new UsageError(`module ${module} is not offered in runtime ${runtimeName}'s channel ${effectiveChannel}: use --channel (${Object.keys(entry.channels).join(', ')}) or --version`);
    }
    changed = await editRemoteModules(
      remote,
      kyma,
      (modules) => {
        const i = modules.findIndex((m) => m.name === module);
        const prev = i >= 0 ? modules[i] : undefined;
        if (prev && prev.channel === wanted.channel && prev.version === wanted.version) return undefined;
        const next = { ...(prev ?? {}), ...wanted };
        if (!channel) delete next.channel;
        if (!version) delete next.version;
        if (i >= 0) modules[i] = next;
        else modules.push(next);
        return modules;
      },
      ctx.signal,
    );
  } catch (e) {
    throw runtimeError(runtimeName, e);
  } finally {
    remote.close();
  }
  const how = version ? `version ${version}` : `channel ${effectiveChannel ?? DEFAULT_CHANNEL}`;
  if (isTable(format)) ctx.output.out(changed ? `module ${module} enabled in runtime ${runtimeName} (${how})\n` : `module ${module} is already enabled in runtime ${runtimeName} (${how})\n`);
  // What the change asks for: the pinned version, or the version its channel offers now.
  const targetVersion = version ?? entry.channels[effectiveChannel ?? DEFAULT_CHANNEL];

  let final: RuntimeModule | undefined;
  if (wait) {
    await waitInContext(ctx, `module ${module} in runtime ${runtimeName} to become Ready`, timeoutMs, async (signal) => {
      const kyma = await kcpKyma(ctx, record.name, signal);
      if (!kyma) return { status: `Kyma ${record.name} not found`, failed: `runtime ${runtimeName} has no Kyma in the control plane any more` };
      const inSpec = (kyma.spec?.modules ?? []).find((m) => m.name === module);
      // The change reached the KCP Kyma, and its status speaks of that spec (observed generation).
      if (!inSpec || inSpec.channel !== wanted.channel || inSpec.version !== wanted.version || !kymaObserved(kyma)) {
        return { status: `module ${module}: waiting for the lifecycle manager to pick up the change` };
      }
      const st = kyma.status?.modules?.find((m) => m.name === module);
      if (!st) return { status: `module ${module} Processing` };
      final = { name: st.name, channel: st.channel, version: st.version, state: st.state || States.Processing, message: st.message };
      const state = final.state;
      const status = `module ${module} ${state}${st.version ? ` ${st.version}` : ''}${st.message ? `: ${st.message}` : ''}`;
      const arrived = st.version === targetVersion && (version !== undefined || st.channel === (effectiveChannel ?? DEFAULT_CHANNEL));
      if (arrived && state === States.Ready) return { status, done: true };
      if (state === States.Error) return { status, failed: `module ${module} in runtime ${runtimeName} is in Error: ${st.message ?? 'no reason given'}` };
      if (arrived && state === States.Warning) return { status, failed: `module ${module} in runtime ${runtimeName} is installed (version ${st.version ?? '?'}) but in Warning: ${st.message ?? 'no reason given'}` };
      // The lifecycle manager keeps the installed version and says why (a downgrade, for one).
      if (!arrived && state === States.Warning) return { status, failed: `module ${module} in runtime ${runtimeName}: the change to ${how} was refused: ${st.message ?? `version ${st.version ?? '?'} kept`}` };
      return { status };
    });
    if (isTable(format)) ctx.output.out(`module ${module} is Ready in runtime ${runtimeName}${final?.version ? ` (version ${final.version})` : ''}\n`);
  }
  if (format === 'name') ctx.output.out(renderNames('module', [module]));
  else if (!isTable(format)) ctx.output.out(renderData({ runtime: runtimeName, module, enabled: true, changed, ...(final ? { status: final } : {}) }, format));
}

async function disable(args: ParsedArgs, positionals: string[], format: OutputFormat, timeoutMs: number, ctx: CliContext): Promise<void> {
  const synopsis = 'kcp module disable RUNTIME MODULE';
  const [, runtimeName, module] = positionals;
  const wait = switchOn(args, 'wait');
  // Only the runtime's own list matters: a module that left the catalog, or a beta module of a
  // runtime that no longer admits beta ones, can still be disabled.
  const record = await requireRuntime(ctx, runtimeName, synopsis);

  const remote = await runtimeClient(ctx, record);
  try {
    const kyma = await remoteKyma(ctx, remote, record, 0);
    const changed = await editRemoteModules(
      remote,
      kyma,
      (modules) => {
        const next = modules.filter((m) => m.name !== module);
        return next.length === modules.length ? undefined : next;
      },
      ctx.signal,
    );
    if (!changed) {
      const mandatory = (await loadCatalog(ctx)).find((e) => e.name === module)?.mandatory;
      throw new UsageError(mandatory ? `module ${module} is mandatory: it is installed in every runtime (version ${mandatory}) and cannot be disabled` : `module ${module} is not enabled in runtime ${runtimeName}`);
    }
  } catch (e) {
    throw runtimeError(runtimeName, e);
  } finally {
    remote.close();
  }
  if (isTable(format)) ctx.output.out(`module ${module} disabled in runtime ${runtimeName}\n`);
  if (wait) {
    await waitInContext(ctx, `module ${module} to be removed from runtime ${runtimeName}`, timeoutMs, async (signal) => {
      const kyma = await kcpKyma(ctx, record.name, signal);
      const inSpec = (kyma?.spec?.modules ?? []).some((m) => m.name === module);
      if (inSpec) return { status: `module ${module}: waiting for the lifecycle manager to pick up the change` };
      const st = kyma?.status?.modules?.find((m) => m.name === module);
      // Gone from the status is not enough: the module is removed from the runtime when its Manifest is gone.
      const manifests = await ctx.kcp.list(Manifest, { namespace: ctx.namespace, labelSelector: `${Labels.KymaName}=${record.name},${Labels.ModuleName}=${module}`, signal });
      if (!st && manifests.items.length === 0) return { status: `module ${module} removed`, done: true };
      return { status: `module ${module} ${st?.state || States.Deleting}${st?.message ? `: ${st.message}` : ''}` };
    });
    if (isTable(format)) ctx.output.out(`module ${module} removed from runtime ${runtimeName}\n`);
  }
  if (format === 'name') ctx.output.out(renderNames('module', [module]));
  else if (!isTable(format)) ctx.output.out(renderData({ runtime: runtimeName, module, enabled: false, removed: wait }, format));
}

/** Errors from the runtime cluster say which runtime they come from; usage errors pass unchanged. */
function runtimeError(runtime: string, e: unknown): Error {
  if (e instanceof UsageError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new Error(`runtime ${runtime}: ${message}`, { cause: e });
}

// ---------------------------------------------------------------------------------------------

/** Checks what can be checked without the control plane; returns the format and arguments. */
function checkModuleArgs(args: ParsedArgs): { verb: string; format: OutputFormat; positionals: string[]; timeoutMs: number } {
  const { format, positionals } = takeOutputFormat(args);
  const given = positionals[0];
  if (given === undefined) throw new UsageError('a subcommand is required: list, enable, disable or push (see kcp module --help)');
  const verb = ALIASES[given] ?? given;
  if (!(verb in VERB_FLAGS)) {
    const near = closestFlag(given, Object.keys(VERB_FLAGS));
    throw new UsageError(`unknown subcommand ${JSON.stringify(given)}: ${near ? `did you mean ${near}? ` : ''}use list, enable, disable or push`);
  }
  if (args.flags.has('timeout') && !switchOn(args, 'wait')) throw new UsageError(`--timeout goes with --wait: kcp module ${verb} RUNTIME MODULE --wait --timeout D`);
  const timeoutMs = timeoutFlag(args, DEFAULT_TIMEOUT_MS);
  if (verb === 'list') {
    // The runtime is an argument as in every other command; --runtime stays for scripts that use it.
    if (positionals.length > 2) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[2])}: kcp module list [RUNTIME]`);
    if (positionals[1] !== undefined && args.flags.has('runtime')) throw new UsageError('give the runtime once: kcp module list RUNTIME (or --runtime RUNTIME)');
  }
  if (verb === 'enable' || verb === 'disable') {
    const synopsis = `kcp module ${verb} RUNTIME MODULE`;
    if (!positionals[1] || !positionals[2]) throw new UsageError(`a runtime and a module are required: ${synopsis}`);
    if (positionals.length > 3) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[3])}: ${synopsis}`);
    if (args.flags.has('channel') && args.flags.has('version')) throw new UsageError('--channel and --version exclude each other: a pinned version does not follow a channel');
  }
  return { verb, format, positionals, timeoutMs };
}

async function performModuleCall(call: ReturnType<typeof checkModuleArgs>, args: ParsedArgs, ctx: CliContext): Promise<void> {
  const { verb, format, positionals, timeoutMs } = call;
  if (verb === 'enable') return enable(args, positionals, format, timeoutMs, ctx);
  if (verb === 'disable') return disable(args, positionals, format, timeoutMs, ctx);
  const runtimeName = positionals[1] ?? flagString(args, 'runtime');
  if (runtimeName === undefined) return printCatalog(await loadCatalog(ctx), format, ctx);
  return printRuntimeModules(await requireRuntime(ctx, runtimeName, 'kcp module list RUNTIME'), format, ctx);
}

export async function runModule(args: ParsedArgs, ctx: CliContext): Promise<void> {
  return performModuleCall(checkModuleArgs(args), args, ctx);
}

export const command: Command = {
  summary: 'the module catalog; enable and disable modules in runtimes; push module versions',
  usage: MODULE_USAGE,
  flags: (verb) => (verb === undefined ? undefined : VERB_FLAGS[ALIASES[verb] ?? verb]),
  async run(args) {
    // `push` talks to a registry (and only optionally to the KCP): it keeps its own flags and connection.
    if (args.positionals[0] === 'push') {
      await runModulePush(args);
      return;
    }
    const call = checkModuleArgs(args);
    await withKcp(args, (ctx) => performModuleCall(call, args, ctx));
  },
};
