// `kcp events [RUNTIME]`: what the controllers reported as Kubernetes Events (events.k8s.io/v1) in the
// control plane, oldest first, for the whole fleet or for one runtime's objects (its Runtime, Kyma,
// GardenerCluster, Manifests, ModuleConfigs and SyncResources).
import { Labels, Manifest, ModuleConfig, SyncResource } from '../api/operator/index.js';
import { isNoKindMatch } from '../runtime/client/index.js';
import type { KindRef, KubeObject } from '../kube/object.js';
import { type FlagTable, flagInt, flagString, type ParsedArgs, rejectExtra, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, KCP_FLAGS, withKcp } from './connect.js';
import { requireRuntime } from './kubeconfig.js';
import { age, forDisplay, isTable, renderData, renderNames, renderTable, takeOutputFormat } from './output.js';

export const EVENTS_USAGE = `Usage:
  kcp events [RUNTIME] [--type Normal|Warning] [--limit N] [-o table|wide|json|yaml|name]
      Events the controllers recorded in the control plane, oldest first: for every object, or for
      the objects of one runtime (Runtime, Kyma, GardenerCluster, Manifests, ModuleConfigs,
      SyncResources). --type Warning shows what went wrong; --limit keeps the newest N (default 200).`;

const EVENTS_FLAGS: FlagTable = { ...KCP_FLAGS, type: 'value', limit: 'value' };
const EVENT: KindRef = { apiVersion: 'events.k8s.io/v1', kind: 'Event' };
const DEFAULT_LIMIT = 200;

interface ObjectReference {
  kind?: string;
  name?: string;
}

export interface EventObject extends KubeObject {
  eventTime?: string;
  series?: { count?: number; lastObservedTime?: string };
  reason?: string;
  note?: string;
  type?: string;
  action?: string;
  reportingController?: string;
  regarding?: ObjectReference;
  deprecatedLastTimestamp?: string;
  deprecatedCount?: number;
}

/** When the event last happened. */
function lastSeen(e: EventObject): string | undefined {
  return e.series?.lastObservedTime ?? e.deprecatedLastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp;
}

/** Names of the objects that belong to a runtime, by kind. */
async function objectsOf(ctx: CliContext, name: string, runtimeID: string): Promise<Set<string>> {
  const keys = new Set([`Runtime/${name}`, `Kyma/${name}`, `GardenerCluster/${runtimeID}`]);
  const selector = `${Labels.KymaName}=${name}`;
  for (const kind of [Manifest, ModuleConfig, SyncResource]) {
    try {
      for (const o of (await ctx.kcp.list(kind, { namespace: ctx.namespace, labelSelector: selector, signal: ctx.signal })).items) keys.add(`${kind.kind}/${o.metadata.name ?? ''}`);
    } catch (e) {
      if (!isNoKindMatch(e)) throw e;
    }
  }
  return keys;
}

export async function runEvents(args: ParsedArgs, ctx: CliContext): Promise<EventObject[]> {
  const { format, positionals } = takeOutputFormat(args);
  rejectExtra(positionals, 1, 'kcp events [RUNTIME]');
  const type = flagString(args, 'type');
  if (type !== undefined && type !== 'Normal' && type !== 'Warning') throw new UsageError(`--type must be Normal or Warning, got ${JSON.stringify(type)}`);
  const limit = flagInt(args, 'limit', DEFAULT_LIMIT);
  if (limit < 1) throw new UsageError('--limit must be at least 1');
  const record = positionals[0] === undefined ? undefined : await requireRuntime(ctx, positionals[0], 'kcp events [RUNTIME]');
  const keys = record ? await objectsOf(ctx, record.name, record.runtimeID) : undefined;
  const all = (await ctx.kcp.list<EventObject>(EVENT, { namespace: ctx.namespace, signal: ctx.signal })).items;
  const events = all
    .filter((e) => (!type || e.type === type) && (!keys || keys.has(`${e.regarding?.kind ?? ''}/${e.regarding?.name ?? ''}`)))
    .sort((a, b) => (Date.parse(lastSeen(a) ?? '') || 0) - (Date.parse(lastSeen(b) ?? '') || 0))
    .slice(-limit);
  if (format === 'name') ctx.output.out(renderNames('event', events.map((e) => e.metadata.name ?? '')));
  else if (!isTable(format)) ctx.output.out(renderData({ apiVersion: 'v1', kind: 'List', items: events.map(forDisplay) }, format));
  else if (events.length === 0) ctx.output.out(record ? `No events for runtime ${record.name}.\n` : `No events in ${ctx.namespace}.\n`);
  else {
    const now = (ctx.now ?? Date.now)();
    const wide = format === 'wide';
    const headers = ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', ...(wide ? ['COUNT', 'SOURCE'] : []), 'MESSAGE'];
    const rows = events.map((e) => [
      age(lastSeen(e), now),
      e.type ?? '',
      e.reason ?? '',
      `${(e.regarding?.kind ?? '').toLowerCase()}/${e.regarding?.name ?? ''}`,
      ...(wide ? [String(e.series?.count ?? e.deprecatedCount ?? 1), e.reportingController ?? ''] : []),
      e.note ?? '',
    ]);
    ctx.output.out(renderTable(headers, rows));
  }
  return events;
}

export const command: Command = {
  summary: 'events the controllers recorded, for the fleet or one runtime',
  usage: EVENTS_USAGE,
  flags: () => EVENTS_FLAGS,
  run: (args) => withKcp(args, (ctx) => runEvents(args, ctx)),
};
