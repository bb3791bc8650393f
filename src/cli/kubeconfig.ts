// `kcp kubeconfig RUNTIME [--path]`: the runtime's kubeconfig from its Secret `kubeconfig-<runtime id>` in
// the KCP, printed or written to a file for `kubectl --kubeconfig "$(kcp kubeconfig r1 --path)"`. Also the
// lookup of a runtime by name that the other commands share.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DefaultKubeconfigSecretKey, kubeconfigSecretName, LabelKymaRuntimeID, Runtime, type RuntimeObject } from '../api/infrastructuremanager/index.js';
import { Kyma, type KymaObject } from '../api/operator/index.js';
import { findObject, isNoKindMatch } from '../runtime/client/index.js';
import type { KindRef, KubeObject } from '../kube/object.js';
import { type FlagTable, type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';
import { type CliContext, KCP_FLAGS, kcpKubeconfigPath, withKcp } from './connect.js';
import { renderData, takeOutputFormat } from './output.js';
import yaml from 'js-yaml';

export const KUBECONFIG_USAGE = `Usage:
  kcp kubeconfig RUNTIME [--path] [-o yaml|json|name] [--kubeconfig KCP_FILE | --data-dir DIR]
      Prints the admin kubeconfig of the runtime cluster (from the KCP Secret kubeconfig-<runtime id>,
      which the infrastructure manager keeps and rotates). --path writes it to
      <dir of the KCP kubeconfig>/runtimes/RUNTIME.kubeconfig (mode 600) and prints that path instead:
        kubectl --kubeconfig "$(kcp kubeconfig r1 --path)" get namespaces
        kcp kubeconfig r1 > r1.kubeconfig
      (kubectl reads its kubeconfig more than once, so \`--kubeconfig <(kcp kubeconfig r1)\` does not work.)
      -o yaml (the default, as stored) or json prints the kubeconfig in that form; -o name prints the
      Secret it comes from (secret/kubeconfig-<runtime id>).`;

const KUBECONFIG_FLAGS: FlagTable = { ...KCP_FLAGS, path: 'switch' };

export const SECRET: KindRef = { apiVersion: 'v1', kind: 'Secret' };

export interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

/** A runtime as the CLI sees it: its Runtime (infrastructure) and its Kyma (modules); at least one exists. */
export interface RuntimeRecord {
  name: string;
  runtime?: RuntimeObject;
  kyma?: KymaObject;
  /** The runtime ID (the Runtime's or Kyma's label, else the name). */
  runtimeID: string;
}

/** The object, or undefined when absent or when its kind is not installed in this KCP. */
async function findOptional<T extends KubeObject>(ctx: CliContext, kind: KindRef, name: string): Promise<T | undefined> {
  try {
    return await findObject<T>(ctx.kcp, kind, { namespace: ctx.namespace, name }, { signal: ctx.signal });
  } catch (e) {
    if (isNoKindMatch(e)) return undefined;
    throw e;
  }
}

/** The runtime of this name, or undefined. */
export async function lookupRuntime(ctx: CliContext, name: string): Promise<RuntimeRecord | undefined> {
  const [runtime, kyma] = await Promise.all([findOptional<RuntimeObject>(ctx, Runtime, name), findOptional<KymaObject>(ctx, Kyma, name)]);
  if (!runtime && !kyma) return undefined;
  const runtimeID = runtime?.metadata.labels?.[LabelKymaRuntimeID] ?? kyma?.metadata.labels?.[LabelKymaRuntimeID] ?? name;
  return { name, runtime, kyma, runtimeID };
}

/** Names of all runtimes (Runtimes and Kymas) in the KCP, sorted. */
export async function runtimeNames(ctx: CliContext): Promise<string[]> {
  const names = new Set<string>();
  for (const kind of [Runtime, Kyma]) {
    try {
      for (const o of (await ctx.kcp.list(kind, { namespace: ctx.namespace, signal: ctx.signal })).items) names.add(o.metadata.name ?? '');
    } catch (e) {
      if (!isNoKindMatch(e)) throw e;
    }
  }
  return [...names].filter(Boolean).sort();
}

/** The runtime of this name; an unknown name is a one-line error listing some known ones. */
export async function requireRuntime(ctx: CliContext, name: string | undefined, synopsis: string): Promise<RuntimeRecord> {
  if (!name) throw new UsageError(`a runtime name is required: ${synopsis}`);
  const found = await lookupRuntime(ctx, name);
  if (found) return found;
  const known = await runtimeNames(ctx);
  const hint = known.length === 0 ? 'there are no runtimes (create one with `kcp runtime create`)' : `known runtimes: ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', ...' : ''}`;
  throw new UsageError(`unknown runtime ${JSON.stringify(name)}: ${hint}`);
}

/** The runtime's kubeconfig from its Secret; a one-line error while it does not exist yet. */
export async function runtimeKubeconfig(ctx: CliContext, record: RuntimeRecord): Promise<string> {
  const secretName = kubeconfigSecretName(record.runtimeID);
  const secret = await findObject<SecretObject>(ctx.kcp, SECRET, { namespace: ctx.namespace, name: secretName }, { signal: ctx.signal });
  const encoded = secret?.data?.[DefaultKubeconfigSecretKey];
  if (!encoded) {
    const state = record.runtime?.status?.state;
    throw new Error(`runtime ${record.name} has no kubeconfig yet (Secret ${ctx.namespace}/${secretName}${secret ? ` has no key ${DefaultKubeconfigSecretKey}` : ' not found'}${state ? `; runtime state ${state}` : ''})`);
  }
  return Buffer.from(encoded, 'base64').toString('utf8');
}

/** Where `--path` writes a runtime's kubeconfig: next to the KCP kubeconfig, in `runtimes/`. */
export function runtimeKubeconfigFile(kcpKubeconfig: string, runtime: string): string {
  return join(dirname(kcpKubeconfig), 'runtimes', `${runtime}.kubeconfig`);
}

export async function runKubeconfig(args: ParsedArgs, ctx: CliContext): Promise<string> {
  const { format, positionals } = takeOutputFormat(args);
  if (positionals.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[1])}: kcp kubeconfig takes one runtime name`);
  if (format === 'name' && args.flags.has('path')) throw new UsageError('--path and -o name exclude each other');
  const record = await requireRuntime(ctx, positionals[0], 'kcp kubeconfig RUNTIME');
  const raw = await runtimeKubeconfig(ctx, record);
  if (format === 'name') {
    ctx.output.out(`secret/${kubeconfigSecretName(record.runtimeID)}\n`);
    return raw;
  }
  const asText = raw.endsWith('\n') ? raw : `${raw}\n`;
  const text = format === 'json' ? renderData(yaml.load(raw), 'json') : asText;
  if (args.flags.has('path')) {
    const file = runtimeKubeconfigFile(kcpKubeconfigPath(args), record.name);
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, text, { mode: 0o600 });
    ctx.output.out(`${file}\n`);
    return text;
  }
  ctx.output.out(text);
  return text;
}

export const command: Command = {
  summary: 'print the kubeconfig of a runtime cluster',
  usage: KUBECONFIG_USAGE,
  flags: () => KUBECONFIG_FLAGS,
  run: (args) => withKcp(args, (ctx) => runKubeconfig(args, ctx)),
};
