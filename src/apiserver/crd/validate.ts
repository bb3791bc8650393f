// Validation of a custom resource against its CRD version schema, in kube-apiserver's order:
// OpenAPI schema, then list-type set/map uniqueness, then x-kubernetes-validations (CEL) rules.
import type { FieldError } from '../errors.js';
import { hasRules, validateCelRules } from './cel-rules.js';
import { errs } from './field-errors.js';
import { validateListSetsAndMaps } from './list-types.js';
import { validateValue } from './openapi-validate.js';
import type { JSONSchemaProps } from './schema-access.js';

const blockingTypes = new Set<FieldError['type']>(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);

/**
 * Validates a custom resource. Metadata (name, labels, ...) is not checked here: the caller runs
 * the ObjectMeta validation first, as kube does, and prepends its errors.
 */
export function validateCustomResource(schema: JSONSchemaProps, obj: Record<string, unknown>, oldObj?: Record<string, unknown>): FieldError[] {
  const out: FieldError[] = [];
  validateValue(schema, obj, '', out);
  validateListSetsAndMaps('', schema, obj, out);
  if (out.some((e) => blockingTypes.has(e.type))) {
    // kube skips CEL rules when the object is structurally invalid, saying so once.
    if (hasRules(schema)) out.push(errs.invalid('<nil>', null, 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation'));
    return out;
  }
  out.push(...validateCelRules(schema, obj, oldObj));
  return out;
}
