// The lifecycle manager's API group operator.kyma-project.io: upstream-compatible v1beta2 kinds
// (v1beta2/) and the v1alpha1 kinds of module resource synchronization (v1alpha1/), what both build
// on (shared.ts), the group's names (constants.ts) and the checks the schemas cannot express
// (validate.ts).
import { Kyma } from './v1beta2/kyma.js';
import { Manifest } from './v1beta2/manifest.js';
import { ModuleConfig } from './v1alpha1/moduleconfig.js';
import { ModuleReleaseMeta } from './v1beta2/modulereleasemeta.js';
import { ModuleTemplate } from './v1beta2/moduletemplate.js';
import { SyncResource } from './v1alpha1/syncresource.js';
import { Watcher } from './v1beta2/watcher.js';

export * from './constants.js';
export * from './shared.js';
export * from './validate.js';
export * from './v1beta2/common.js';
export * from './v1beta2/kyma.js';
export * from './v1beta2/manifest.js';
export * from './v1beta2/modulereleasemeta.js';
export * from './v1beta2/moduletemplate.js';
export * from './v1beta2/watcher.js';
export * from './v1alpha1/moduleconfig.js';
export * from './v1alpha1/syncresource.js';

/** Every kind of the group, in the order the docs list them. */
export const operatorKinds = [Kyma, ModuleTemplate, ModuleReleaseMeta, Manifest, Watcher, ModuleConfig, SyncResource] as const;
