// `kcp status`: the fleet at a glance: runtimes, Kymas, modules and Manifests counted by state.
import { Manifest, type ManifestObject, ModuleReleaseMeta, States } from '../api/operator/index.js';
import { isNoKindMatch } from '../runtime/client/index.js';
import { type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, withKcp } from './connect.js';
import { renderData, renderTable, takeOutputFormat } from './output.js';
import { loadRuntimes } from './runtime.js';

export const STATUS_USAGE = `Usage:
  kcp status [-o json|yaml] [--kubeconfig KCP_FILE | --data-dir DIR]
      Counts runtimes (by Runtime state), Kymas, modules and Manifests by state, and the modules in the catalog.`;

export interface Tally {
  total: number;
  byState: Record<string, number>;
}

export interface FleetStatus {
  runtimes: Tally;
  kymas: Tally;
  modules: Tally;
  manifests: Tally;
  catalogModules: number;
}

function tally(states: string[]): Tally {
  const byState: Record<string, number> = {};
  for (const s of states) byState[s] = (byState[s] ?? 0) + 1;
  return { total: states.length, byState: Object.fromEntries(Object.entries(byState).sort(([a], [b]) => a.localeCompare(b))) };
}

export async function fleetStatus(ctx: CliContext): Promise<FleetStatus> {
  const orEmpty = <T>(e: unknown): T[] => {
    if (isNoKindMatch(e)) return [];
    throw e;
  };
  const [all, manifests, metas] = await Promise.all([
    loadRuntimes(ctx),
    ctx.kcp.list<ManifestObject>(Manifest, { namespace: ctx.namespace, signal: ctx.signal }).then((r) => r.items, orEmpty<ManifestObject>),
    ctx.kcp.list(ModuleReleaseMeta, { namespace: ctx.namespace, signal: ctx.signal }).then((r) => r.items, orEmpty),
  ]);
  const runtimes = all.flatMap((r) => (r.runtime ? [r.runtime.metadata.deletionTimestamp ? 'Terminating' : (r.runtime.status?.state ?? 'Pending')] : []));
  const kymas = all.flatMap((r) => (r.kyma ? [r.kyma.metadata.deletionTimestamp ? States.Deleting : r.kyma.status?.state || States.Processing] : []));
  const modules = all.flatMap((r) => (r.kyma?.status?.modules ?? []).map((m) => m.state || States.Processing));
  return {
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
  if (format !== 'table') ctx.output.out(renderData(status, format));
  else {
    const rows = [
      ['runtimes', String(status.runtimes.total), states(status.runtimes)],
      ['kymas', String(status.kymas.total), states(status.kymas)],
      ['modules', String(status.modules.total), states(status.modules)],
      ['manifests', String(status.manifests.total), states(status.manifests)],
      ['catalog', String(status.catalogModules), 'modules published'],
    ];
    ctx.output.out(renderTable(['KIND', 'TOTAL', 'BY STATE'], rows));
  }
  return status;
}

export const command: Command = {
  summary: 'fleet summary: runtimes, modules and Manifests by state',
  usage: STATUS_USAGE,
  switches: new Set(['help']),
  run: (args) => withKcp(args, (ctx) => runStatus(args, ctx)),
};
