// The lifecycle manager's API group operator.kyma-project.io: upstream-compatible v1beta2 kinds and
// the v1alpha1 kinds of module resource synchronization.
import { Kyma } from './kyma.js';
import { Manifest } from './manifest.js';
import { ModuleConfig } from './moduleconfig.js';
import { ModuleReleaseMeta } from './modulereleasemeta.js';
import { ModuleTemplate } from './moduletemplate.js';
import { SyncResource } from './syncresource.js';
import { Watcher } from './watcher.js';

export * from './common.js';
export * from './constants.js';
export * from './kyma.js';
export * from './manifest.js';
export * from './moduleconfig.js';
export * from './modulereleasemeta.js';
export * from './moduletemplate.js';
export * from './syncresource.js';
export * from './validate.js';
export * from './watcher.js';

/** Every kind of the group, in the order the docs list them. */
export const operatorKinds = [Kyma, ModuleTemplate, ModuleReleaseMeta, Manifest, Watcher, ModuleConfig, SyncResource] as const;
