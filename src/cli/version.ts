// `kcp version`: this client's version and the control plane's, from the Lease the controllers write
// when they start (src/controlplane/announce.ts).
import { Annotations } from '../api/operator/index.js';
import { CONTROL_PLANE_LEASE } from '../controlplane/announce.js';
import { findObject } from '../runtime/client/index.js';
import { LEASE_KIND, type Lease } from '../runtime/leader/lease.js';
import { projectVersion } from '../util/version.js';
import { type FlagTable, type ParsedArgs, rejectExtra, switchOn, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, KCP_FLAGS, processOutput, withKcp } from './connect.js';
import { isTable, type OutputFormat, renderData, renderTable, takeOutputFormat } from './output.js';

export const VERSION_USAGE = `Usage:
  kcp version [--client] [-o table|wide|json|yaml]
      Prints this client's version and the control plane's: the version of the controllers that
      started last, which replica and when (from the Lease kcp-control-plane in the control-plane
      namespace). --client: only the client, without asking the control plane.`;

const VERSION_FLAGS: FlagTable = { ...KCP_FLAGS, client: 'switch' };

export interface VersionInfo {
  client: { version: string; node: string };
  controlPlane?: { version: string; replica?: string; startedAt?: string };
}

/** The control plane's version, or undefined when no controllers have announced themselves. */
export async function controlPlaneVersion(ctx: CliContext): Promise<VersionInfo['controlPlane']> {
  const lease = await findObject<Lease>(ctx.kcp, LEASE_KIND, { namespace: ctx.namespace, name: CONTROL_PLANE_LEASE }, { signal: ctx.signal });
  if (!lease) return undefined;
  return { version: lease.metadata.annotations?.[Annotations.ControlPlaneVersion] ?? 'unknown', replica: lease.spec?.holderIdentity, startedAt: lease.spec?.acquireTime };
}

function print(info: VersionInfo, format: OutputFormat, ctx: Pick<CliContext, 'output'>): void {
  if (!isTable(format)) return ctx.output.out(renderData(info, format));
  const rows = [['client', info.client.version, `node ${info.client.node}`]];
  if (info.controlPlane) rows.push(['control plane', info.controlPlane.version, `replica ${info.controlPlane.replica ?? '?'}, started ${info.controlPlane.startedAt ?? '?'}`]);
  ctx.output.out(renderTable(['COMPONENT', 'VERSION', 'DETAILS'], rows));
}

/** `-o name` prints no objects here; the rest of the input is checked before the control plane is asked. */
function checkVersionArgs(args: ParsedArgs): OutputFormat {
  const { format, positionals } = takeOutputFormat(args);
  rejectExtra(positionals, 0, 'kcp version takes no arguments');
  if (format === 'name') throw new UsageError('kcp version prints no objects: use -o table, json or yaml');
  return format;
}

const clientInfo = (): VersionInfo['client'] => ({ version: projectVersion(), node: process.version });

export async function runVersion(args: ParsedArgs, ctx: CliContext): Promise<VersionInfo> {
  const format = checkVersionArgs(args);
  const controlPlane = await controlPlaneVersion(ctx);
  if (!controlPlane) throw new Error(`no control plane has started against this KCP (no Lease ${ctx.namespace}/${CONTROL_PLANE_LEASE})`);
  const info: VersionInfo = { client: clientInfo(), controlPlane };
  print(info, format, ctx);
  return info;
}

export const command: Command = {
  summary: 'the versions of this client and of the control plane',
  usage: VERSION_USAGE,
  flags: () => VERSION_FLAGS,
  async run(args) {
    const format = checkVersionArgs(args);
    if (switchOn(args, 'client')) return print({ client: clientInfo() }, format, { output: processOutput });
    try {
      await withKcp(args, (ctx) => runVersion(args, ctx));
    } catch (e) {
      // The client's own version is known either way; say it before the reason the rest is not.
      if (isTable(format)) print({ client: clientInfo() }, format, { output: processOutput });
      throw e;
    }
  },
};
