// The Gardener simulator of the embedded landscape.
export * from './options.js';
export { GardenerSimulator, type GardenerSimulatorConfig } from './simulator.js';
export { injectedFailure, type ShootClusterHooks } from './shoot-operator.js';
export { deletionRefusal, validateShoot } from './validation.js';
export { ShootAdmissionWebhook, WEBHOOK_CONFIGURATION_NAME } from './webhook.js';
export { cidrsOverlap, parseCidr } from './cidr.js';
export { LabelWorkerPool, machineSize, machinesOf } from './machines.js';
