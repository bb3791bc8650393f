// The Watchers installed with the control plane. `ensureDefaultWatchers` creates the missing ones and
// never touches one that exists: an operator may have changed it on purpose.
import { LabelValues, Labels, Watcher, type WatcherObject } from '../api/operator/index.js';
import { isAlreadyExists } from '../runtime/client/errors.js';
import { findObject } from '../runtime/client/find.js';
import type { Client } from '../runtime/client/interface.js';
import {
  DEFAULT_WATCHER_NAME,
  defaultGatewaySelector,
  LIFECYCLE_MANAGER_EVENTS,
  MODULE_RESOURCE_EVENTS,
  MODULE_RESOURCES_WATCHER_NAME,
  MODULE_STATUS_EVENTS,
  MODULE_STATUS_WATCHER_NAME,
  WATCHER_FIELD_MANAGER,
} from './constants.js';

/** Where the Watchers' events go in the KCP: the listener's Service. */
export interface ListenerService {
  serviceName: string;
  serviceNamespace: string;
  port: number;
}

function watcher(name: string, namespace: string, manager: string, listener: ListenerService, spec: Pick<WatcherObject['spec'], 'labelsToWatch' | 'resourceToWatch' | 'field'>): WatcherObject {
  return {
    apiVersion: Watcher.apiVersion,
    kind: Watcher.kind,
    // The deprecated label carries the manager too, for readers that do not know spec.manager yet.
    metadata: { name, namespace, labels: { [Labels.ManagedBy]: manager } },
    spec: {
      manager,
      serviceInfo: { name: listener.serviceName, namespace: listener.serviceNamespace, port: listener.port },
      ...spec,
      gateway: { selector: defaultGatewaySelector() },
    },
  };
}

/**
 * The three default Watchers:
 * - `klm-watcher` (upstream's): runtime Kymas labelled `watched-by: kyma`, any version, spec changes,
 *   for the Kyma controller (manager `lifecycle-manager`);
 * - `klm-module-resources` (the project's own): every resource a module installed (labels
 *   `managed-by: kyma` and `app.kubernetes.io/part-of: Kyma`, which the Manifest controller puts on
 *   all of them; the part-of label keeps out the runtime Kyma, the watcher's own objects and the
 *   module's default CR, which carry `managed-by: kyma` alone), spec changes, for the Manifest
 *   controller (manager `lifecycle-manager-resources`), so drift is repaired without polling;
 * - `klm-module-status` (the project's own): status changes of everything labelled `managed-by:
 *   kyma` (the manager Deployment's availability, the state the module CR reports), for the Manifest
 *   controller too (manager `lifecycle-manager-module-status`: it reads readiness and the object named),
 *   so that a Ready module's readiness is not polled either. Its events about the runtime
 *   Kyma itself (whose status the lifecycle manager mirrors) are dropped by the router.
 */
export function defaultWatchers(namespace: string, listener: ListenerService): WatcherObject[] {
  return [
    watcher(DEFAULT_WATCHER_NAME, namespace, LIFECYCLE_MANAGER_EVENTS, listener, {
      labelsToWatch: { [Labels.WatchedBy]: LabelValues.Kyma },
      resourceToWatch: { group: 'operator.kyma-project.io', version: '*', resource: 'kymas' },
      field: 'spec',
    }),
    watcher(MODULE_RESOURCES_WATCHER_NAME, namespace, MODULE_RESOURCE_EVENTS, listener, {
      labelsToWatch: { [Labels.ManagedBy]: LabelValues.Kyma, [Labels.PartOf]: LabelValues.PartOfKyma },
      resourceToWatch: { group: '*', version: '*', resource: '*' },
      field: 'spec',
    }),
    watcher(MODULE_STATUS_WATCHER_NAME, namespace, MODULE_STATUS_EVENTS, listener, {
      labelsToWatch: { [Labels.ManagedBy]: LabelValues.Kyma },
      resourceToWatch: { group: '*', version: '*', resource: '*' },
      field: 'status',
    }),
  ];
}

/**
 * The Watcher of one module's custom resources (any object of that resource, spec changes), for the
 * ModuleConfig controller: what a runtime admin changes in the module's configuration reaches the
 * module's ModuleConfig at once. The lifecycle manager creates it when a template opts in.
 */
export function moduleResourceWatcher(
  name: string,
  namespace: string,
  manager: string,
  listener: ListenerService,
  module: string,
  resource: { group: string; resource: string },
): WatcherObject {
  const w = watcher(name, namespace, manager, listener, { labelsToWatch: {}, resourceToWatch: { group: resource.group, version: '*', resource: resource.resource }, field: 'spec' });
  w.metadata.labels = { ...w.metadata.labels, [Labels.ModuleName]: module };
  return w;
}

/** Creates the default Watchers that do not exist; returns the names created. Existing ones are left as they are. */
export async function ensureDefaultWatchers(client: Client, namespace: string, listener: ListenerService, signal?: AbortSignal): Promise<string[]> {
  const created: string[] = [];
  for (const w of defaultWatchers(namespace, listener)) {
    const name = w.metadata.name ?? '';
    const existing = await findObject<WatcherObject>(client, Watcher, { namespace, name }, { signal });
    if (existing) {
      if (name === MODULE_STATUS_WATCHER_NAME && existing.spec?.manager === MODULE_RESOURCE_EVENTS) {
        // The one default changed since: status events got a manager of their own (readiness and
        // the object named, no read-back of every object). Only the manager moves; the rest stays as it is.
        const manager = { spec: { manager: MODULE_STATUS_EVENTS }, metadata: { labels: { [Labels.ManagedBy]: MODULE_STATUS_EVENTS } } };
        await client.patch(Watcher, { namespace, name }, 'merge', manager, { fieldManager: WATCHER_FIELD_MANAGER, signal });
      }
      continue;
    }
    try {
      await client.create(w, { fieldManager: WATCHER_FIELD_MANAGER, signal });
      created.push(name);
    } catch (e) {
      // Another replica (or a person) was faster: theirs stays.
      if (!isAlreadyExists(e)) throw e;
    }
  }
  return created;
}
