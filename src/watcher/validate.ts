// What the Watcher CRD cannot check by itself: a Watcher the controller accepts yields a working
// webhook in every runtime and a working route to the listener; anything else is reported on the
// Watcher (state Error, message naming what is wrong) instead of being rolled out broken.
import { Labels, type WatcherObject } from '../api/operator/index.js';

/** The manager that receives the Watcher's events: `spec.manager`, else the deprecated managed-by label. */
export function managerOf(w: WatcherObject): string | undefined {
  return w.spec?.manager || w.metadata.labels?.[Labels.ManagedBy] || undefined;
}

const PATH_SEGMENT = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const SELECTOR_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** The problems of a Watcher's spec, each naming the field; empty when the Watcher is usable. */
export function watcherProblems(w: WatcherObject): string[] {
  const spec = w.spec;
  if (!spec) return ['spec is missing'];
  const problems: string[] = [];
  const manager = managerOf(w);
  if (!manager) problems.push(`spec.manager is empty and the deprecated label ${Labels.ManagedBy} is missing: one of them must name the component that receives the events`);
  else if (!PATH_SEGMENT.test(manager)) problems.push(`manager ${JSON.stringify(manager)} is not a valid URL path segment (it becomes /validate/<manager> and /v2/<manager>/event)`);
  const si = spec.serviceInfo;
  if (!si?.name) problems.push('spec.serviceInfo.name is empty');
  if (!si?.namespace) problems.push('spec.serviceInfo.namespace is empty');
  if (!si || !Number.isInteger(si.port) || si.port < 1 || si.port > 65535) problems.push(`spec.serviceInfo.port must be between 1 and 65535, got ${String(si?.port)}`);
  const r = spec.resourceToWatch;
  // Without labels every object of the resource calls the webhook: fine for one resource (a module's
  // custom resources), not for a wildcard.
  if (Object.keys(spec.labelsToWatch ?? {}).length === 0 && (r?.group === '*' || r?.resource === '*')) {
    problems.push('spec.labelsToWatch is empty while spec.resourceToWatch has a wildcard: the webhook would be called for every object of every resource');
  }
  for (const f of ['group', 'version', 'resource'] as const) {
    // The group of core resources is the empty string in admission rules; the CRD requires the field, not a value.
    if (f !== 'group' && !r?.[f]) problems.push(`spec.resourceToWatch.${f} is empty`);
  }
  if (r?.resource?.includes('/')) problems.push(`spec.resourceToWatch.resource ${JSON.stringify(r.resource)} names a subresource: watch the status with spec.field: status instead`);
  for (const e of spec.gateway?.selector?.matchExpressions ?? []) {
    if (!SELECTOR_OPERATORS.has(e.operator)) problems.push(`spec.gateway.selector: operator ${JSON.stringify(e.operator)} of key ${e.key} is not one of In, NotIn, Exists, DoesNotExist`);
    else if ((e.operator === 'In' || e.operator === 'NotIn') && !(e.values ?? []).length) problems.push(`spec.gateway.selector: operator ${e.operator} of key ${e.key} needs values`);
  }
  return problems;
}
