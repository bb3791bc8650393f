// Deletion of a Runtime whose runtime id another Runtime holds (runtime-id.ts): the Kyma, the
// GardenerCluster and the kubeconfig Secret of that id are the holder's, so they stay. Only a Shoot
// that no other Runtime names is this Runtime's own (e.g. one it created before it was relabelled)
// and goes as usual; one the holder names stays too.
import type { Machine, SystemState, Transition } from '../machine.js';
import { switchTo } from '../machine.js';
import { deleteShoot } from './delete-shoot.js';
import { removeFinalizer } from './remove-finalizer.js';

export function deleteDuplicate(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const shootName = s.shoot?.metadata.name;
  const namedByAnother = shootName !== undefined && (m.runtimes?.list() ?? []).some((other) => other.metadata.uid !== rt.metadata.uid && other.spec?.shoot?.name === shootName);
  if (!s.shoot || namedByAnother) {
    m.log.info('runtime deleted; its runtime id is held by another Runtime, whose kubeconfig, Kyma and Shoot stay', { shoot: shootName ?? '' });
    return Promise.resolve(switchTo(removeFinalizer));
  }
  return Promise.resolve(switchTo(deleteShoot));
}
