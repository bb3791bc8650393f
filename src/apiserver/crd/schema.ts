// Entry points for custom resources: pruning, defaulting and validation against one CRD
// version's `schema.openAPIV3Schema`.
export type { JSONSchemaProps } from './schema-access.js';
export { prune } from './prune.js';
export { applyDefaults } from './defaults.js';
export { validateCustomResource } from './validate.js';
