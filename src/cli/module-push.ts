// `kcp module push DIR --registry HOST[:PORT]`: publishes a module version (see docs/modules.md).
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { ModuleReleaseMeta, type ModuleReleaseMetaObject, Namespaces } from '../api/operator/index.js';
import { readModuleDir } from '../lifecycle/artifacts/module-dir.js';
import { defaultRepository, moduleReleaseMetaFor, moduleTemplateFor, packageModule, pushModule } from '../lifecycle/artifacts/push.js';
import { hostOf, isLoopbackHost } from '../lifecycle/artifacts/reference.js';
import { clientFromKubeconfig, findObject } from '../runtime/client/index.js';
import type { KubeObject } from '../kube/object.js';
import { type FlagTable, flagString, type ParsedArgs, switchOn, UsageError } from './args.js';

export const MODULE_PUSH_USAGE = `Usage:
  kcp module push DIR --registry HOST[:PORT] [--repository kyma-modules/<name>] [--insecure]
                  [--username U --password P] [--ca-file CA.pem]
                  [--apply --kubeconfig FILE [--namespace kcp-system]] [-o|--output yaml|json]
      Packages the module directory DIR (module.yaml, manifest.yaml, optional default-cr.yaml) as an
      OCI artifact, pushes it tagged with the module version, and prints the ModuleTemplate and the
      ModuleReleaseMeta for it; --apply applies them to the control plane instead (server-side apply).
      Loopback registries and --insecure ones are reached over http. The password may also come
      from KCP_REGISTRY_PASSWORD.`;

/** The flags of `kcp module push`. */
export const MODULE_PUSH_FLAGS: FlagTable = {
  registry: 'value',
  repository: 'value',
  insecure: 'switch',
  username: 'value',
  password: 'value',
  'ca-file': 'value',
  apply: 'switch',
  kubeconfig: 'value',
  namespace: 'value',
  output: 'value',
};

/** Field manager of the objects `--apply` writes. */
export const MODULE_PUSH_FIELD_MANAGER = 'kcp-module-push';

export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: CommandOutput = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

export interface ModulePushResult {
  link: string;
  digest: string;
  objects: KubeObject[];
}

/** Runs `kcp module push`. `args` holds what follows `module` (`push DIR ...`) or `push` (`DIR ...`), parsed with MODULE_PUSH_FLAGS. */
export async function runModulePush(args: ParsedArgs, output: CommandOutput = processOutput, signal?: AbortSignal): Promise<ModulePushResult> {
  const positionals = [...args.positionals];
  if (positionals[0] === 'push') positionals.shift();
  if (positionals.length !== 1) throw new UsageError(`exactly one module directory is required (see kcp module --help)`);
  const registry = flagString(args, 'registry');
  if (!registry) throw new UsageError(`--registry HOST[:PORT] is required (see kcp module --help)`);
  if (/^[a-z]+:\/\//i.test(registry) || registry.includes('/')) throw new UsageError(`--registry takes HOST[:PORT] without scheme or path, not ${JSON.stringify(registry)}`);
  const format = flagString(args, 'output', 'yaml');
  if (format !== 'yaml' && format !== 'json') throw new UsageError(`-o must be yaml or json, not ${JSON.stringify(format)}`);
  const apply = switchOn(args, 'apply');
  const kubeconfigPath = flagString(args, 'kubeconfig') ?? process.env.KUBECONFIG;
  if (apply && !kubeconfigPath) throw new UsageError('--apply needs --kubeconfig FILE (or KUBECONFIG)');
  const namespace = flagString(args, 'namespace', Namespaces.ControlPlane) ?? Namespaces.ControlPlane;
  const username = flagString(args, 'username');
  const password = flagString(args, 'password') ?? process.env.KCP_REGISTRY_PASSWORD;
  if ((username === undefined) !== (password === undefined)) throw new UsageError('--username and --password go together');
  const caFile = flagString(args, 'ca-file');

  const source = readModuleDir(positionals[0]);
  const repository = flagString(args, 'repository') ?? defaultRepository(source.definition.name);
  const artifact = packageModule(source);
  const pushed = await pushModule(artifact, source.definition.version, {
    registry,
    repository,
    credentials: username !== undefined && password !== undefined ? { username, password } : undefined,
    plainHttp: switchOn(args, 'insecure') || isLoopbackHost(hostOf(registry)),
    ca: caFile ? [readFileSync(caFile, 'utf8')] : undefined,
    signal,
  });
  output.err(`pushed ${source.definition.name} ${source.definition.version} to ${registry}/${repository}:${pushed.tag} (${pushed.digest})\n`);

  const template = moduleTemplateFor(source, pushed.link, namespace);
  let objects: KubeObject[];
  if (apply) {
    const client = clientFromKubeconfig(readFileSync(kubeconfigPath as string, 'utf8'));
    try {
      const existing = await getReleaseMeta(client, namespace, source.definition.name, signal);
      const releaseMeta = moduleReleaseMetaFor(source, existing, namespace);
      objects = [];
      for (const obj of [template, releaseMeta]) {
        const applied = await client.apply(obj, { fieldManager: MODULE_PUSH_FIELD_MANAGER, force: true, signal });
        delete applied.metadata.managedFields;
        objects.push(applied);
        output.err(`applied ${obj.kind} ${namespace}/${obj.metadata.name ?? ''}\n`);
      }
    } finally {
      client.close();
    }
  } else {
    objects = [template, moduleReleaseMetaFor(source, undefined, namespace)];
  }
  output.out(format === 'json' ? `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2)}\n` : objects.map((o) => yaml.dump(o, { noRefs: true, lineWidth: -1 })).join('---\n'));
  return { link: pushed.link, digest: pushed.digest, objects };
}

async function getReleaseMeta(client: ReturnType<typeof clientFromKubeconfig>, namespace: string, name: string, signal?: AbortSignal): Promise<ModuleReleaseMetaObject | undefined> {
  return findObject<ModuleReleaseMetaObject>(client, ModuleReleaseMeta, { namespace, name }, { signal });
}
