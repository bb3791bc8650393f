// Last step of deletion: Shoot and kubeconfig are gone, the Runtime may go.
import { RuntimeFinalizer } from '../../../api/infrastructuremanager/index.js';
import { type Machine, type SystemState, type Transition, stop } from '../machine.js';
import { patchFinalizers } from '../runtime-writes.js';

export async function removeFinalizer(m: Machine, s: SystemState): Promise<Transition> {
  const finalizers = s.runtime.metadata.finalizers ?? [];
  if (finalizers.includes(RuntimeFinalizer)) {
    await patchFinalizers(m, s, finalizers.filter((f) => f !== RuntimeFinalizer));
    m.log.info('shoot deleted; runtime released');
  }
  return stop();
}
