// Gardener's APIs as the control plane consumes them: the Shoot kind (a CRD in the embedded garden
// cluster), the parts of core.gardener.cloud/v1beta1 the Runtime kind embeds, Gardener's error codes,
// and the AdminKubeconfigRequest of the adminkubeconfig subresource.
import { Shoot } from './v1beta1/shoot.js';

export * from './v1beta1/common.js';
export * from './v1beta1/errors.js';
export * from './v1beta1/shoot.js';
export * from './authentication/v1alpha1/adminkubeconfigrequest.js';

/** Gardener kinds installed as CRDs into the embedded garden cluster. */
export const gardenerKinds = [Shoot] as const;
