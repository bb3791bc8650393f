// Creates the Shoot for the Runtime with server-side apply (field manager `kim`). The Shoot's name is
// the Runtime's `spec.shoot.name`, so a controller restarted between this write and the status
// write finds the Shoot and does not create a second one. Before that, as upstream: a Runtime that
// enforces its seed location needs a seed in its region, and mandatory audit logging a tenant.
import { isConversionError, toShoot } from '../../converter/index.js';
import type { ShootObject } from '../../../api/gardener/index.js';
import {
  ConditionReasonConversionError,
  ConditionReasonGardenerError,
  ConditionReasonSeedNotFound,
  ConditionReasonShootCreationPending,
  ConditionTypeRuntimeProvisioned,
} from '../../../api/infrastructuremanager/index.js';
import { auditLogConfigured } from '../audit-log.js';
import { seedForRegionAvailable } from '../seeds.js';
import { type Machine, type SystemState, type Transition, updateStatusAndRequeueAfter, updateStatusAndStop } from '../machine.js';
import { updateStateFailed, updateStatePending } from '../status.js';

export async function createShoot(m: Machine, s: SystemState): Promise<Transition> {
  const rt = s.runtime;
  const { region, provider } = rt.spec.shoot;
  if (rt.spec.shoot.enforceSeedLocation === true) {
    let seeds;
    try {
      seeds = await seedForRegionAvailable(m.garden, provider.type, region, m.signal);
    } catch (e) {
      m.log.warn('listing the seeds failed', { region, error: e });
      updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonGardenerError, `Failed to verify whether a seed is available for the region ${region}: ${e instanceof Error ? e.message : String(e)}`);
      return updateStatusAndRequeueAfter(m.timing.gardenerRequeueMs);
    }
    if (!seeds.available) {
      const msg = `Cannot find an available seed for the region ${region}. The following regions have seeds ready: [${seeds.regionsWithSeeds.join(', ')}].`;
      m.log.error('no seed for the runtime\'s region', { region, provider: provider.type, regionsWithSeeds: seeds.regionsWithSeeds });
      m.metrics.fsmStopped(ConditionReasonSeedNotFound);
      updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonSeedNotFound, msg);
      return updateStatusAndStop();
    }
  }
  if (!auditLogConfigured(m, rt)) return updateStatusAndStop();

  let shoot: ShootObject;
  try {
    shoot = toShoot(rt, m.converterConfig, { project: m.project });
  } catch (e) {
    if (!isConversionError(e)) throw e;
    m.log.warn('runtime cannot be converted to a shoot', { field: e.field, error: e });
    m.metrics.fsmStopped(ConditionReasonConversionError);
    updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonConversionError, `Runtime conversion error: ${e.message}`);
    return updateStatusAndStop();
  }

  try {
    s.shoot = await m.garden.apply(shoot, { fieldManager: m.fieldManager, force: true, signal: m.signal });
  } catch (e) {
    // Gardener refused the Shoot (admission) or is unreachable: say so, and try again later.
    m.log.warn('creating the shoot failed', { shoot: shoot.metadata.name, error: e });
    updateStateFailed(rt, ConditionTypeRuntimeProvisioned, ConditionReasonGardenerError, `Gardener API create error: ${e instanceof Error ? e.message : String(e)}`);
    return updateStatusAndRequeueAfter(m.timing.gardenerRequeueMs);
  }

  m.log.info('shoot created', { shoot: shoot.metadata.name, namespace: shoot.metadata.namespace });
  updateStatePending(rt, ConditionTypeRuntimeProvisioned, ConditionReasonShootCreationPending, 'Unknown', 'Shoot is pending');
  return updateStatusAndRequeueAfter(m.timing.gardenerRequeueMs);
}
