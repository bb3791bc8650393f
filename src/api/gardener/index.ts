// Gardener's APIs as the control plane consumes them: the Shoot and Seed kinds (CRDs in the embedded
// garden cluster), the parts of core.gardener.cloud/v1beta1 the Runtime kind embeds, Gardener's error codes,
// and the AdminKubeconfigRequest of the adminkubeconfig subresource.
import { Seed } from './v1beta1/seed.js';
import { Shoot } from './v1beta1/shoot.js';

export * from './v1beta1/common.js';
export * from './v1beta1/errors.js';
export * from './v1beta1/shoot.js';
export * from './v1beta1/seed.js';
export * from './authentication/v1alpha1/adminkubeconfigrequest.js';

/** Gardener kinds installed as CRDs into the embedded garden cluster. */
export const gardenerKinds = [Shoot, Seed] as const;
