// What each built-in kind contributes: its name rule and strategy hooks. index.ts dispatches on these.
import type { FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import type { MetaRules } from './meta.js';

export interface CreateContext {
  allocateClusterIP(): string;
  /** Optional: node ports for NodePort/LoadBalancer services; a random free-looking port otherwise. */
  allocateNodePort?(): number;
}

export interface KindBehaviour {
  meta: MetaRules;
  /** Name checks beyond the rule (e.g. CronJob's length limit). */
  extraName?(name: string): string[];
  defaults?(obj: ObjectWithMeta): void;
  prepareCreate?(obj: ObjectWithMeta, ctx: CreateContext): void;
  prepareUpdate?(obj: ObjectWithMeta, old: ObjectWithMeta): void;
  /** The kind's validation, ObjectMeta included; `old` is set on update. */
  validate?(obj: ObjectWithMeta, old?: ObjectWithMeta): FieldError[];
  dropEmpty?(obj: ObjectWithMeta): void;
  /**
   * Served versions whose objects differ from the stored version's in more than apiVersion
   * (policy/v1beta1 PodDisruptionBudget): the conversion to and from the stored version.
   */
  versions?: Record<string, { toStorage(obj: ObjectWithMeta): ObjectWithMeta; fromStorage(obj: ObjectWithMeta): ObjectWithMeta }>;
}

export const NAMESPACED_SUBDOMAIN: MetaRules = { name: 'subdomain', namespaced: true, kubeFinalizers: true };
export const CLUSTER_SUBDOMAIN: MetaRules = { name: 'subdomain', namespaced: false, kubeFinalizers: true };
