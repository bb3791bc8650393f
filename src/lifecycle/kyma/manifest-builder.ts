// The Manifest of one module in one Kyma, as the Kyma controller (and the mandatory-module
// controller) want it: named `<kyma>-<module>-<adler32(fqdn)>` as upstream names them, labelled
// with the Kyma, module and channel, owned by the Kyma, installing the ModuleTemplate's
// `rawManifest` link and (unless the policy is Ignore) the template's default custom resource.
import {
  Annotations,
  isEnabled,
  Kyma,
  LabelValues,
  Labels,
  Manifest,
  Namespaces,
  RAW_MANIFEST_RESOURCE,
  type KymaObject,
  type ManifestObject,
  type ModuleTemplateObject,
} from '../../api/operator/index.js';
import { jsonEqual } from '../../kube/json.js';

/** Name of the installation in Manifest.spec.install (upstream writes `raw-manifest`). */
export const INSTALL_NAME = 'raw-manifest';

/** Adler-32 of a string's UTF-8 bytes, the checksum upstream puts into Manifest names. */
export function adler32(text: string): number {
  const MOD = 65521;
  let a = 1;
  let b = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    a = (a + byte) % MOD;
    b = (b + a) % MOD;
  }
  return ((b << 16) | a) >>> 0;
}

export function manifestName(kymaName: string, moduleName: string, fqdn: string): string {
  return `${kymaName}-${moduleName}-${adler32(fqdn)}`;
}

export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

export interface ManifestInput {
  kyma: KymaObject;
  moduleName: string;
  template: ModuleTemplateObject;
  version: string;
  fqdn: string;
  channel?: string;
  customResourcePolicy?: 'CreateAndDelete' | 'Ignore';
  mandatory?: boolean;
  unmanaged?: boolean;
}

/** The rawManifest link of a template; TemplateError when it has none. */
export function rawManifestLink(template: ModuleTemplateObject): string {
  const link = template.spec.resources?.find((r) => r.name === RAW_MANIFEST_RESOURCE)?.link;
  if (!link) throw new TemplateError(`ModuleTemplate ${template.metadata.name ?? ''} has no ${RAW_MANIFEST_RESOURCE} resource`);
  return link;
}

/** The module's default custom resource, placed into `kyma-system` unless the template says it is cluster-scoped. */
export function defaultResource(template: ModuleTemplateObject): Record<string, unknown> | undefined {
  const data = template.spec.data as Record<string, unknown> | undefined;
  if (!data || Object.keys(data).length === 0) return undefined;
  const metadata = { ...((data.metadata as Record<string, unknown> | undefined) ?? {}) };
  if (isEnabled(template.metadata.annotations?.[Annotations.IsClusterScoped])) delete metadata.namespace;
  else metadata.namespace ??= Namespaces.Remote;
  return { ...data, metadata };
}

/** The labels and annotations buildManifest may set (some only sometimes): the ones a re-apply would change or remove. */
const BUILT_LABELS = [Labels.KymaName, Labels.ModuleName, Labels.ManagedBy, Labels.Channel, Labels.IsMandatoryModule];
const BUILT_ANNOTATIONS = [Annotations.FQDN, Annotations.OCMComponentName, Annotations.Unmanaged];

/**
 * Whether applying `desired` (from buildManifest) would leave `existing` as it is, compared by value:
 * the same spec, the same values (or absence) of the labels and annotations buildManifest sets, and
 * its owner reference present. Then no apply is sent.
 */
export function manifestUpToDate(existing: ManifestObject | undefined, desired: ManifestObject): boolean {
  // A Manifest being deleted is compared the same way: an apply would not undo its deletion.
  if (!existing) return false;
  const same = (keys: string[], a: Record<string, string> | undefined, b: Record<string, string> | undefined) => keys.every((k) => a?.[k] === b?.[k]);
  return (
    jsonEqual(existing.spec, desired.spec) &&
    same(BUILT_LABELS, existing.metadata.labels, desired.metadata.labels) &&
    same(BUILT_ANNOTATIONS, existing.metadata.annotations, desired.metadata.annotations) &&
    (desired.metadata.ownerReferences ?? []).every((want) => (existing.metadata.ownerReferences ?? []).some((have) => jsonEqual(have, want)))
  );
}

export function buildManifest(input: ManifestInput): ManifestObject {
  const { kyma, template } = input;
  const labels: Record<string, string> = {
    [Labels.KymaName]: kyma.metadata.name ?? '',
    [Labels.ModuleName]: input.moduleName,
    [Labels.ManagedBy]: LabelValues.LifecycleManager,
  };
  if (input.channel) labels[Labels.Channel] = input.channel;
  if (input.mandatory) labels[Labels.IsMandatoryModule] = LabelValues.Enable;
  const annotations: Record<string, string> = { [Annotations.FQDN]: input.fqdn, [Annotations.OCMComponentName]: input.fqdn };
  if (input.unmanaged) annotations[Annotations.Unmanaged] = LabelValues.Enable;
  const policy = input.customResourcePolicy ?? 'CreateAndDelete';
  const resource = policy === 'Ignore' ? undefined : defaultResource(template);
  const spec: ManifestObject['spec'] = {
    remote: true,
    version: input.version,
    customResourcePolicy: policy,
    install: { name: INSTALL_NAME, source: { url: rawManifestLink(template) } },
  };
  if (resource) spec.resource = resource;
  if (template.spec.manager) spec.manager = template.spec.manager;
  return {
    apiVersion: Manifest.apiVersion,
    kind: Manifest.kind,
    metadata: {
      name: manifestName(kyma.metadata.name ?? '', input.moduleName, input.fqdn),
      namespace: kyma.metadata.namespace,
      labels,
      annotations,
      ownerReferences: [{ apiVersion: Kyma.apiVersion, kind: Kyma.kind, name: kyma.metadata.name ?? '', uid: kyma.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec,
  };
}
