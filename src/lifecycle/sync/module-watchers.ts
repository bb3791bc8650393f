// The Watchers of modules' custom resources: one per module whose template opts in to ModuleConfig
// (`module-config-<module>`), watching that resource in every runtime so that an edit reaches the
// ModuleConfig within a second. Created when the ModuleConfig controller first reads the module's
// custom resource (discovery gives the resource's plural name), removed when no template of the
// module opts in any more.
import { Watcher, type WatcherObject } from '../../api/operator/index.js';
import { jsonEqual } from '../../kube/json.js';
import type { Store } from '../../runtime/cache/store.js';
import { isNotFound } from '../../runtime/client/errors.js';
import type { Client, ResourceInfo } from '../../runtime/client/interface.js';
import { moduleResourceWatcher, type ListenerService } from '../../watcher/defaults.js';
import { MODULE_CONFIG_EVENTS, MODULE_CONFIG_FIELD_MANAGER, moduleConfigWatcherName } from './constants.js';

export class ModuleConfigWatchers {
  constructor(
    private readonly kcp: Client,
    private readonly namespace: string,
    private readonly listener: ListenerService,
    private readonly watchers: Store<WatcherObject>,
  ) {}

  /** Makes sure the module's Watcher watches this resource (one apply when it is missing or differs). */
  async ensure(module: string, resource: ResourceInfo, signal: AbortSignal): Promise<void> {
    const desired = moduleResourceWatcher(moduleConfigWatcherName(module), this.namespace, MODULE_CONFIG_EVENTS, this.listener, module, resource);
    const current = this.watchers.get(`${this.namespace}/${desired.metadata.name ?? ''}`);
    if (current && jsonEqual(current.spec.resourceToWatch, desired.spec.resourceToWatch) && current.spec.manager === desired.spec.manager && jsonEqual(current.spec.labelsToWatch, desired.spec.labelsToWatch)) return;
    await this.kcp.apply(desired, { fieldManager: MODULE_CONFIG_FIELD_MANAGER, force: true, signal });
  }

  /** Whether the module has a Watcher (from the informer cache). */
  has(module: string): boolean {
    return this.watchers.get(`${this.namespace}/${moduleConfigWatcherName(module)}`) !== undefined;
  }

  /** Removes the module's Watcher (no template of the module opts in). */
  async retire(module: string, signal: AbortSignal): Promise<void> {
    const name = moduleConfigWatcherName(module);
    try {
      await this.kcp.delete(Watcher, { namespace: this.namespace, name }, { signal });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
