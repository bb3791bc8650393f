// The Runtime-to-Shoot converter of the infrastructure manager: configuration, conversion, patch plan.
export { ConversionError, ConverterConfigError, isConversionError } from './errors.js';
export {
  defaultMachineImage,
  isGardenerInternalDns,
  loadConverterConfig,
  type AuditLogConfig,
  type AuditLogTenant,
  type ConverterConfig,
  type LoadConverterConfigOptions,
  type MaintenanceTimeWindow,
  type MaintenanceWindowPolicy,
  type OidcProviderConfig,
} from './config.js';
export { planShootPatch, projectNamespace, toShoot, type JsonPatchOperation, type ShootPatchPlan, type ToShootOptions } from './convert.js';
export {
  ShootGlobalAccountLabel,
  ShootLicenceTypeAnnotation,
  ShootRestrictedEUAccessAnnotation,
  ShootRuntimeGenerationAnnotation,
  ShootRuntimeIDAnnotation,
  ShootSubAccountLabel,
} from './extenders/metadata.js';
export { RegistryCacheExtensionType } from './extenders/registry-cache.js';
export { awsZoneSubnets } from './provider/aws.js';
export { azureZoneSubnets } from './provider/azure.js';
export { compareVersions } from './version.js';
