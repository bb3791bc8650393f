// Labels and annotations of the Shoot (upstream extender/annotations.go and labels.go).
import { LabelKymaGlobalAccountID, LabelKymaRuntimeID, LabelKymaSubaccountID } from '../../../api/infrastructuremanager/index.js';
import type { ConversionInput } from '../types.js';

/** Shoot annotation: the Runtime's id (its `kyma-project.io/runtime-id` label). */
export const ShootRuntimeIDAnnotation = 'infrastructuremanager.kyma-project.io/runtime-id';
/** Shoot annotation: the Runtime's metadata.generation the Shoot was last converted from. */
export const ShootRuntimeGenerationAnnotation = 'infrastructuremanager.kyma-project.io/runtime-generation';
/** Shoot annotation: the Runtime's licence type, when it has one. */
export const ShootLicenceTypeAnnotation = 'infrastructuremanager.kyma-project.io/licence-type';
/** Shoot annotation asking Gardener support to keep cluster nodes in the EU. */
export const ShootRestrictedEUAccessAnnotation = 'support.gardener.cloud/eu-access-for-cluster-nodes';
/** Shoot labels with the BTP accounts (names the provisioner used). */
export const ShootGlobalAccountLabel = 'account';
export const ShootSubAccountLabel = 'subaccount';

/** Platform regions whose runtimes must stay in the EU (upstream isEuAccess). */
export const euAccessPlatformRegions = ['cf-eu11', 'cf-ch20'] as const;

export function isEuAccess(platformRegion: string): boolean {
  return (euAccessPlatformRegions as readonly string[]).includes(platformRegion);
}

export function shootAnnotations({ runtime }: ConversionInput): Record<string, string> {
  const labels = runtime.metadata.labels ?? {};
  const annotations: Record<string, string> = {
    [ShootRuntimeIDAnnotation]: labels[LabelKymaRuntimeID] ?? '',
    [ShootRuntimeGenerationAnnotation]: String(runtime.metadata.generation ?? 0),
  };
  const licence = runtime.spec.shoot.licenceType;
  if (licence) annotations[ShootLicenceTypeAnnotation] = licence;
  if (isEuAccess(runtime.spec.shoot.platformRegion)) annotations[ShootRestrictedEUAccessAnnotation] = 'true';
  return annotations;
}

export function shootLabels({ runtime }: ConversionInput): Record<string, string> {
  const labels = runtime.metadata.labels ?? {};
  return {
    [ShootGlobalAccountLabel]: labels[LabelKymaGlobalAccountID] ?? '',
    [ShootSubAccountLabel]: labels[LabelKymaSubaccountID] ?? '',
  };
}
