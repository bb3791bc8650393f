// Runtime -> Shoot: the base fields taken straight from the Runtime, then one extender per concern
// (upstream pkg/gardener/shoot/converter.go). With `existing` the result is the full desired Shoot for
// a patch: versions Gardener auto-updated are not downgraded and zone orders are kept.
import { Shoot, type ShootObject } from '../../api/gardener/index.js';
import type { RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { ConverterConfig } from './config.js';
import { auditLogSetup, resources } from './extenders/auditlog.js';
import { dns } from './extenders/dns.js';
import { extensions } from './extenders/extensions.js';
import { kubernetes } from './extenders/kubernetes.js';
import { maintenance } from './extenders/maintenance.js';
import { shootAnnotations, shootLabels } from './extenders/metadata.js';
import { networking } from './extenders/networking.js';
import { placement } from './extenders/placement.js';
import { buildProvider, checkProviderType } from './provider/index.js';
import { removedWorkerNames } from './provider/workers.js';
import { cloneJson, type ConversionInput, type ShootSpec } from './types.js';

export interface ToShootOptions {
  /** Gardener project: the Shoot lives in namespace `garden-<project>`. */
  project: string;
  /** The Shoot as it is now, when patching. */
  existing?: ShootObject;
}

/** Namespace of a Gardener project. */
export function projectNamespace(project: string): string {
  return `garden-${project}`;
}

function credentials(input: ConversionInput): Pick<ShootSpec, 'secretBindingName' | 'credentialsBindingName'> {
  const name = input.runtime.spec.shoot.secretBindingName;
  const existing = input.existing?.spec;
  // The binding kind of a live Shoot stays as it is; new Shoots follow the configuration.
  const useCredentialsBinding = existing ? existing.credentialsBindingName !== undefined : input.config.gardener.enableCredentialBinding;
  return useCredentialsBinding ? { credentialsBindingName: name } : { secretBindingName: name };
}

/**
 * The Shoot for a Runtime. Throws a ConversionError (with the offending Runtime field) when the
 * Runtime cannot be converted.
 */
export function toShoot(runtime: RuntimeObject, config: ConverterConfig, opts: ToShootOptions): ShootObject {
  const input: ConversionInput = { runtime, config, existing: opts.existing };
  checkProviderType(input);
  const shoot = runtime.spec.shoot;
  const audit = auditLogSetup(input);

  const spec: ShootSpec = {
    purpose: shoot.purpose,
    region: shoot.region,
    ...credentials(input),
    ...placement(input),
    networking: networking(input),
    kubernetes: kubernetes(input, audit?.policyConfigMapName),
    provider: buildProvider(input),
    extensions: extensions(input, audit),
    maintenance: maintenance(input),
  };
  const dnsSpec = dns(input);
  if (dnsSpec) spec.dns = dnsSpec;
  const res = resources(input, audit);
  if (res) spec.resources = res;
  if (shoot.controlPlane) spec.controlPlane = cloneJson(shoot.controlPlane);

  return {
    apiVersion: Shoot.apiVersion,
    kind: Shoot.kind,
    metadata: {
      name: shoot.name,
      namespace: projectNamespace(opts.project),
      labels: shootLabels(input),
      annotations: shootAnnotations(input),
    },
    spec,
  };
}

/** One RFC 6902 operation. */
export type JsonPatchOperation =
  | { op: 'test'; path: string; value: unknown }
  | { op: 'remove'; path: string };

export interface ShootPatchPlan {
  /** The full desired Shoot, to apply with server-side apply (force, the controller's field manager). */
  shoot: ShootObject;
  /** Worker pools the Shoot has and the Runtime no longer lists. */
  removedWorkers: string[];
  /**
   * JSON patch removing those pools from the live Shoot, guarded by `test` operations on the
   * resourceVersion and each pool's name (so that it fails with 422 instead of removing the wrong
   * pool when the Shoot changed in between). Empty when nothing is removed.
   */
  workerRemovalPatch: JsonPatchOperation[];
}

/**
 * Plans the update of an existing Shoot. Server-side apply removes a worker pool only when the
 * applier is its sole manager; Gardener writes into worker pools too (machine image versions), so a
 * pool that disappeared from the Runtime is removed explicitly with `workerRemovalPatch` first, then
 * `shoot` is applied.
 */
export function planShootPatch(runtime: RuntimeObject, config: ConverterConfig, opts: ToShootOptions & { existing: ShootObject }): ShootPatchPlan {
  const shoot = toShoot(runtime, config, opts);
  const live = opts.existing.spec.provider.workers ?? [];
  const removedWorkers = removedWorkerNames(shoot.spec.provider.workers ?? [], live);
  const workerRemovalPatch: JsonPatchOperation[] = [];
  if (removedWorkers.length > 0) {
    const rv = opts.existing.metadata.resourceVersion;
    if (rv !== undefined) workerRemovalPatch.push({ op: 'test', path: '/metadata/resourceVersion', value: rv });
    // Highest index first, so that earlier removals do not shift later indexes.
    const indexes = removedWorkers.map((name) => live.findIndex((w) => w.name === name)).sort((a, b) => b - a);
    for (const i of indexes) {
      workerRemovalPatch.push({ op: 'test', path: `/spec/provider/workers/${i}/name`, value: live[i].name });
      workerRemovalPatch.push({ op: 'remove', path: `/spec/provider/workers/${i}` });
    }
  }
  return { shoot, removedWorkers, workerRemovalPatch };
}
