// Publishing a module version: package the module directory as an OCI artifact, push it, and describe
// it to the control plane as a ModuleTemplate (`<name>-<version>`, rawManifest linked by digest) plus
// the ModuleReleaseMeta entry for its channels.
import {
  Annotations,
  LabelValues,
  Labels,
  ModuleReleaseMeta,
  type ModuleReleaseMetaObject,
  ModuleTemplate,
  type ModuleTemplateObject,
  moduleTemplateName,
  Namespaces,
  RAW_MANIFEST_RESOURCE,
} from '../../api/operator/index.js';
import type { KubeObject } from '../../kube/object.js';
import { AuthCache } from './auth.js';
import { sha256Digest } from './digest.js';
import type { OciDescriptor, OciImageManifest } from './fetcher.js';
import { DEFAULT_CR_LAYER, DEFAULT_CR_FILE_TITLE, MODULE_CONFIG, OCI_MANIFEST, RAW_MANIFEST_LAYER, TITLE_ANNOTATION, RAW_MANIFEST_FILE_TITLE } from './media-types.js';
import type { ModuleSource } from './module-dir.js';
import { formatOciReference } from './reference.js';
import { RegistryClient } from './registry-client.js';
import type { RegistryCredentials } from './types.js';
import { isRecord } from './yaml-stream.js';

export interface Blob {
  descriptor: OciDescriptor;
  bytes: Buffer;
}

export interface ModuleArtifact {
  config: Blob;
  layers: Blob[];
  manifest: OciImageManifest;
  manifestBytes: Buffer;
  manifestDigest: string;
}

/** Repository a module goes to unless told otherwise. */
export function defaultRepository(moduleName: string): string {
  return `kyma-modules/${moduleName}`;
}

function blob(mediaType: string, bytes: Buffer, title?: string): Blob {
  const descriptor: OciDescriptor = { mediaType, digest: sha256Digest(bytes), size: bytes.length };
  if (title) descriptor.annotations = { [TITLE_ANNOTATION]: title };
  return { descriptor, bytes };
}

/** The artifact of a module version; identical inputs give identical bytes (and digest). */
export function packageModule(source: ModuleSource): ModuleArtifact {
  const config = blob(MODULE_CONFIG, Buffer.from(JSON.stringify(source.definition)));
  const layers = [blob(RAW_MANIFEST_LAYER, source.rawManifest, RAW_MANIFEST_FILE_TITLE)];
  if (source.defaultCR) layers.push(blob(DEFAULT_CR_LAYER, source.defaultCR, DEFAULT_CR_FILE_TITLE));
  const manifest: OciImageManifest = {
    schemaVersion: 2,
    mediaType: OCI_MANIFEST,
    config: config.descriptor,
    layers: layers.map((l) => l.descriptor),
    annotations: { 'org.opencontainers.image.title': source.definition.name, 'org.opencontainers.image.version': source.definition.version },
  };
  const manifestBytes = Buffer.from(JSON.stringify(manifest));
  return { config, layers, manifest, manifestBytes, manifestDigest: sha256Digest(manifestBytes) };
}

export interface PushTarget {
  /** `host[:port]`. */
  registry: string;
  repository: string;
  credentials?: RegistryCredentials;
  plainHttp: boolean;
  ca?: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface PushResult {
  /** `oci://host:port/repository@sha256:<manifest digest>`: what ModuleTemplates link. */
  link: string;
  digest: string;
  tag: string;
}

/** Pushes blobs (skipping those the registry has), then the manifest tagged with the module version. */
export async function pushModule(artifact: ModuleArtifact, version: string, target: PushTarget): Promise<PushResult> {
  const client = new RegistryClient({
    registry: target.registry,
    credentials: target.credentials,
    plainHttp: target.plainHttp,
    ca: target.ca,
    timeoutMs: target.timeoutMs ?? 60_000,
    authCache: new AuthCache(),
  });
  for (const b of [artifact.config, ...artifact.layers]) await client.pushBlob(target.repository, b.bytes, target.signal);
  const digest = await client.putManifest(target.repository, version, artifact.manifestBytes, OCI_MANIFEST, target.signal);
  return { link: formatOciReference({ registry: target.registry, repository: target.repository, reference: digest }), digest, tag: version };
}

/** The ModuleTemplate `<name>-<version>` of a pushed module. */
export function moduleTemplateFor(source: ModuleSource, link: string, namespace: string = Namespaces.ControlPlane): ModuleTemplateObject {
  const d = source.definition;
  const labels: Record<string, string> = { [Labels.ModuleName]: d.name };
  if (d.beta) labels[Labels.Beta] = LabelValues.Enable;
  if (d.internal) labels[Labels.Internal] = LabelValues.Enable;
  if (d.mandatory) labels[Labels.IsMandatoryModule] = LabelValues.Enable;
  const annotations: Record<string, string> = {};
  if (source.defaultCRObject) annotations[Annotations.IsClusterScoped] = String(isClusterScoped(source.defaultCRObject, source.objects));
  const spec: ModuleTemplateObject['spec'] = {
    moduleName: d.name,
    version: d.version,
    mandatory: d.mandatory,
    resources: [{ name: RAW_MANIFEST_RESOURCE, link }],
  };
  if (source.defaultCRObject) spec.data = source.defaultCRObject;
  if (d.manager) spec.manager = d.manager;
  if (d.info) spec.info = d.info;
  if (d.associatedResources) spec.associatedResources = d.associatedResources;
  if (d.requiresDowntime) spec.requiresDowntime = true;
  if (d.enableModuleConfig) spec.enableModuleConfig = true;
  if (d.syncResourceKinds) spec.syncResourceKinds = d.syncResourceKinds;
  return {
    apiVersion: ModuleTemplate.apiVersion,
    kind: ModuleTemplate.kind,
    metadata: { name: moduleTemplateName(d.name, d.version), namespace, labels, ...(Object.keys(annotations).length ? { annotations } : {}) },
    spec,
  };
}

/**
 * The ModuleReleaseMeta of the module after this version is released: the module's channels point at
 * this version, other channels of `existing` stay; a mandatory module gets `mandatory.version` instead.
 */
export function moduleReleaseMetaFor(source: ModuleSource, existing?: ModuleReleaseMetaObject, namespace: string = Namespaces.ControlPlane): ModuleReleaseMetaObject {
  const d = source.definition;
  const spec: ModuleReleaseMetaObject['spec'] = { moduleName: d.name };
  const ocm = d.ocmComponentName ?? existing?.spec.ocmComponentName;
  if (ocm) spec.ocmComponentName = ocm;
  if (d.mandatory) spec.mandatory = { version: d.version };
  else {
    const kept = (existing?.spec.channels ?? []).filter((c) => !d.channels.includes(c.channel));
    spec.channels = [...kept, ...d.channels.map((channel) => ({ channel, version: d.version }))].sort((a, b) => a.channel.localeCompare(b.channel));
  }
  if (d.beta) spec.beta = true;
  if (d.internal) spec.internal = true;
  if (existing?.spec.kymaSelector) spec.kymaSelector = existing.spec.kymaSelector;
  return {
    apiVersion: ModuleReleaseMeta.apiVersion,
    kind: ModuleReleaseMeta.kind,
    metadata: { name: d.name, namespace },
    spec,
  };
}

/** Scope of the default CR's kind as its CRD in the raw manifest declares it; namespaced when unknown. */
function isClusterScoped(cr: KubeObject, objects: KubeObject[]): boolean {
  const group = cr.apiVersion.includes('/') ? cr.apiVersion.slice(0, cr.apiVersion.indexOf('/')) : '';
  const crd = objects.find((o) => {
    if (o.kind !== 'CustomResourceDefinition' || !isRecord(o.spec)) return false;
    const names = o.spec.names;
    return o.spec.group === group && isRecord(names) && names.kind === cr.kind;
  });
  return crd !== undefined && isRecord(crd.spec) && crd.spec.scope === 'Cluster';
}
