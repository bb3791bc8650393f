// The infrastructure manager's API, infrastructuremanager.kyma-project.io/v1: Runtime and
// GardenerCluster, their constants, the project's own names of the group (constants.ts), and the
// checks the schemas cannot express.
import { GardenerCluster } from './v1/gardenercluster.js';
import { Runtime } from './v1/runtime.js';

export * from './constants.js';
export * from './v1/runtime.js';
export * from './v1/gardenercluster.js';
export * from './v1/validate.js';

/** The kinds the infrastructure manager owns (installed into the KCP). */
export const infrastructureKinds = [Runtime, GardenerCluster] as const;
