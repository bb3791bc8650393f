// A module like upstream's template-operator for the parity scenarios on the Kyma test landscape
// (test/lifecycle/kyma-env.ts): its Sample CRD, a manager per major version and the default CR
// `kyma-system/sample-yaml`, which the test reports Ready as the module's operator would.
import { Labels, ModuleTemplate, Namespaces, States } from '../../../src/api/operator/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { isNotFound } from '../../../src/runtime/client/index.js';
import type { HttpClient } from '../../../src/runtime/client/index.js';
import { moduleLink, NS, waitFor, type KymaEnv } from '../../lifecycle/kyma-env.js';

export const MODULE = 'template-operator';
export const V1 = '1.1.0-smoke-test';
export const V2 = '2.4.1-smoke-test';
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' };
export const SAMPLE = { apiVersion: 'operator.kyma-project.io/v1alpha1', kind: 'Sample' };
export const SAMPLE_KEY = { namespace: Namespaces.Remote, name: 'sample-yaml' };
/** The module's manager per major version (upstream's template-operator-v1/-v2-controller-manager Deployments; ConfigMaps here: no kubelet in this landscape). */
export const managerOf = (version: string) => ({ namespace: Namespaces.Remote, name: `${MODULE}-v${version.split('.')[0]}-controller-manager` });

/** Like the template-operator: its Sample CRD and its manager, next to the fetcher's ConfigMap. */
export function templateOperatorObjects(version: string): KubeObject[] {
  const crd = sampleCrd({ status: false });
  return [crd, { ...CONFIGMAP, metadata: managerOf(version), data: { version } } as KubeObject];
}

export interface SampleCrdOptions {
  /** API group (default upstream's `operator.kyma-project.io`). */
  group?: string;
  /** Cluster-scoped Samples (upstream's cluster-scoped setup). */
  clusterScoped?: boolean;
  /** The storage version: `v1beta1` adds it beside a still-served `v1alpha1` (upstream's API-upgrade setup). */
  storageVersion?: 'v1alpha1' | 'v1beta1';
  /** The status subresource (default on, as template-operator's Sample has it). */
  status?: boolean;
}

/** The Sample CRD of template-operator, the module upstream's e2e scenarios install; shared by the parity landscapes. */
export function sampleCrd(opts: SampleCrdOptions = {}): KubeObject {
  const group = opts.group ?? 'operator.kyma-project.io';
  const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
  const subresources = opts.status === false ? {} : { subresources: { status: {} } };
  const versions = opts.storageVersion === 'v1beta1'
    ? [
        { name: 'v1alpha1', served: true, storage: false, ...subresources, schema },
        { name: 'v1beta1', served: true, storage: true, ...subresources, schema },
      ]
    : [{ name: 'v1alpha1', served: true, storage: true, ...subresources, schema }];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `samples.${group}` },
    spec: { group, scope: opts.clusterScoped ? 'Cluster' : 'Namespaced', names: { kind: 'Sample', listKind: 'SampleList', plural: 'samples', singular: 'sample' }, versions },
  };
}

export async function gone(probe: () => Promise<unknown>): Promise<boolean> {
  return probe().then(() => false, (e: unknown) => {
    if (isNotFound(e)) return true;
    throw e;
  });
}

/** The ModuleTemplate `template-operator-<version>` with the Sample default CR. */
export async function publishTemplate(env: KymaEnv, version: string): Promise<void> {
  await env.kcp.create({
    apiVersion: ModuleTemplate.apiVersion,
    kind: ModuleTemplate.kind,
    metadata: { name: `${MODULE}-${version}`, namespace: NS, labels: { [Labels.ModuleName]: MODULE } },
    spec: { moduleName: MODULE, version, data: { ...SAMPLE, metadata: { name: 'sample-yaml' }, spec: { resourceFilePath: './module-data/yaml' } }, resources: [{ name: 'rawManifest', link: moduleLink(MODULE, version) }] },
  });
}

/** The module operator's part: the default CR reports Ready once it is there. */
export async function sampleReady(remote: HttpClient): Promise<void> {
  await waitFor('the default CR in the runtime', () => remote.get(SAMPLE, SAMPLE_KEY));
  await remote.patch(SAMPLE, SAMPLE_KEY, 'merge', { status: { state: States.Ready } });
}
