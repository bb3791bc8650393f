// `kcp status`: the fleet at a glance: runtimes, Kymas, modules and Manifests counted by state.
import { RuntimeStateFailed } from '../api/infrastructuremanager/index.js';
import { Manifest, type ManifestObject, ModuleReleaseMeta, States } from '../api/operator/index.js';
import { type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, KCP_FLAGS, withKcp } from './connect.js';
import { isTable, renderData, renderNames, renderTable, takeOutputFormat } from './output.js';
import { absentKind, kymaState, latestCondition, loadRuntimes, runtimeState } from './runtime.js';

export const STATUS_USAGE = `Usage:
  kcp status [-o table|wide|json|yaml|name] [--kubeconfig KCP_FILE | --data-dir DIR]
      Counts runtimes (by Runtime state), Kymas, modules and Manifests by state, and the modules in
      the catalog; then names what needs attention (Failed runtimes, Kymas and modules in Error or
      Warning) with the reason. -o name prints the runtimes that need attention.`;

export interface Tally {
  total: number;
  byState: Record<string, number>;
}

/** Something that needs a person's attention, with the reason the control plane gives. */
export interface Problem {
  runtime: string;
  /** `runtime`, `kyma` or `module <name>`. */
  what: string;
  state: string;
  message: string;
}

export interface FleetStatus {
  runtimes: Tally;
  kymas: Tally;
  modules: Tally;
  manifests: Tally;
  catalogModules: number;
  problems: Problem[];
}

const TROUBLE: ReadonlySet<string> = new Set([RuntimeStateFailed, States.Error, States.Warning]);

function tally(states: string[]): Tally {
  const byState: Record<string, number> = {};
  for (const s of states) byState[s] = (byState[s] ?? 0) + 1;
  return { total: states.length, byState: Object.fromEntries(Object.entries(byState).sort(([a], [b]) => a.localeCompare(b))) };
}

export async function fleetStatus(ctx: CliContext): Promise<FleetStatus> {
  const [all, manifests, metas] = await Promise.all([
    loadRuntimes(ctx),
    ctx.kcp.list<ManifestObject>(Manifest, { namespace: ctx.namespace, signal: ctx.signal }).then((r) => r.items, absentKind<ManifestObject>),
    ctx.kcp.list(ModuleReleaseMeta, { namespace: ctx.namespace, signal: ctx.signal }).then((r) => r.items, absentKind),
  ]);
  const runtimes = all.flatMap((r) => (r.runtime ? [runtimeState(r.runtime)] : []));
  const kymas = all.flatMap((r) => (r.kyma ? [kymaState(r.kyma)] : []));
  const modules = all.flatMap((r) => (r.kyma?.status?.modules ?? []).map((m) => m.state || States.Processing));
  const problems: Problem[] = [];
  for (const { name, runtime, kyma } of all) {
    if (runtime && TROUBLE.has(runtimeState(runtime))) problems.push({ runtime: name, what: 'runtime', state: runtimeState(runtime), message: latestCondition(runtime.status?.conditions)?.message ?? '' });
    const troubledModules = (kyma?.status?.modules ?? []).filter((m) => TROUBLE.has(m.state));
    // A Kyma in trouble because of its modules is named through them.
    if (kyma && TROUBLE.has(kymaState(kyma)) && troubledModules.length === 0) problems.push({ runtime: name, what: 'kyma', state: kymaState(kyma), message: kyma.status?.lastOperation?.operation ?? '' });
    for (const m of troubledModules) problems.push({ runtime: name, what: `module ${m.name}`, state: m.state, message: m.message ?? '' });
  }
  return {
    problems,
    runtimes: tally(runtimes),
    kymas: tally(kymas),
    modules: tally(modules),
    manifests: tally(manifests.map((m) => (m.metadata.deletionTimestamp ? States.Deleting : m.status?.state || States.Processing))),
    catalogModules: metas.length,
  };
}

function states(t: Tally): string {
  const parts = Object.entries(t.byState).map(([s, n]) => `${s} ${n}`);
  return parts.length ? parts.join(', ') : '-';
}

export async function runStatus(args: ParsedArgs, ctx: CliContext): Promise<FleetStatus> {
  const { format, positionals } = takeOutputFormat(args);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}: kcp status takes no arguments`);
  const status = await fleetStatus(ctx);
  if (format === 'name') ctx.output.out(renderNames('runtime', [...new Set(status.problems.map((p) => p.runtime))]));
  else if (!isTable(format)) ctx.output.out(renderData(status, format));
  else {
    const rows = [
      ['runtimes', String(status.runtimes.total), states(status.runtimes)],
      ['kymas', String(status.kymas.total), states(status.kymas)],
      ['modules', String(status.modules.total), states(status.modules)],
      ['manifests', String(status.manifests.total), states(status.manifests)],
      ['catalog', String(status.catalogModules), 'modules published'],
    ];
    ctx.output.out(renderTable(['KIND', 'TOTAL', 'BY STATE'], rows));
    if (status.problems.length === 0) ctx.output.out('\nNothing needs attention.\n');
    else {
      ctx.output.out(`\nNeeds attention (${status.problems.length}):\n`);
      ctx.output.out(renderTable(['RUNTIME', 'WHAT', 'STATE', 'MESSAGE'], status.problems.map((p) => [p.runtime, p.what, p.state, p.message])));
    }
  }
  return status;
}

export const command: Command = {
  summary: 'fleet summary: runtimes, modules and Manifests by state',
  usage: STATUS_USAGE,
  flags: () => KCP_FLAGS,
  run: (args) => withKcp(args, (ctx) => runStatus(args, ctx)),
};
