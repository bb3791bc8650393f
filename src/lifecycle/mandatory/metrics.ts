// Upstream's mandatory-module metrics (lifecycle-manager internal/pkg/metrics/mandatory_modules.go):
// `lifecycle_mgr_mandatory_modules`, the number of mandatory modules, and
// `lifecycle_mgr_mandatory_module_state{kyma_name,module_name,state}`, 1 for the state of a Kyma's
// mandatory module (its Manifest's) and 0 for the others; a module's series go with its Manifest
// or its Kyma. Recorded by the mandatory-module controller, which reconciles a Kyma whenever one of
// its mandatory Manifests changes state.
import { stateValues } from '../../api/operator/index.js';
import type { Gauge, Registry, StateGauge } from '../../runtime/metrics.js';

const STATES = stateValues.filter((s) => s !== '');

export class MandatoryModuleMetrics {
  private readonly count: Gauge;
  private readonly state: StateGauge;
  /** The modules reported per Kyma, to drop their series when they go. */
  private readonly modulesByKyma = new Map<string, Set<string>>();

  constructor(registry: Registry) {
    this.count = registry.gauge({ name: 'lifecycle_mgr_mandatory_modules', help: 'The number of mandatory modules (ModuleReleaseMetas with spec.mandatory).' });
    this.state = registry.stateGauge({
      name: 'lifecycle_mgr_mandatory_module_state',
      help: 'The state of a mandatory module of a Kyma: 1 for its current state, 0 for the others.',
      labelNames: ['kyma_name', 'module_name', 'state'],
      stateLabel: 'state',
      states: STATES,
    });
    // Shown from the start, as a Prometheus client shows an unlabelled gauge; the first reconcile sets it.
    this.count.set(undefined, 0);
  }

  modules(count: number): void {
    this.count.set(undefined, count);
  }

  /** The states of a Kyma's mandatory modules now (module -> Manifest state; none yet: no series); other modules' series go. */
  kyma(kymaName: string, states: Map<string, string>): void {
    for (const gone of this.modulesByKyma.get(kymaName) ?? []) if (!states.has(gone)) this.remove(kymaName, gone);
    this.modulesByKyma.set(kymaName, new Set(states.keys()));
    for (const [module, current] of states) this.state.set({ kyma_name: kymaName, module_name: module }, current);
  }

  /** Drops every series of a Kyma that is gone or being deleted. */
  forget(kymaName: string): void {
    for (const m of this.modulesByKyma.get(kymaName) ?? []) this.remove(kymaName, m);
    this.modulesByKyma.delete(kymaName);
  }

  private remove(kymaName: string, module: string): void {
    this.state.remove({ kyma_name: kymaName, module_name: module });
  }
}
