// field.Error constructors that render bad values as kube-apiserver does (Go %v / %q / %#v).
import { fieldErrors, type FieldError } from '../errors.js';
import { goBadValue, goSharpV } from './go-format.js';

export const errs = {
  invalid: (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${goBadValue(value)}: ${detail}` }),
  typeInvalid: (field: string, value: unknown, detail: string): FieldError => ({ type: 'FieldValueTypeInvalid', field, message: `Invalid value: ${goBadValue(value)}: ${detail}` }),
  required: (field: string, detail = ''): FieldError => ({ type: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' }),
  forbidden: (field: string, detail: string): FieldError => ({ type: 'FieldValueForbidden', field, message: detail ? `Forbidden: ${detail}` : 'Forbidden' }),
  notSupported: (field: string, value: unknown, supported: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field,
    message: `Unsupported value: ${goBadValue(value)}` + (supported.length > 0 ? `: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}` : ''),
  }),
  duplicate: (field: string, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field, message: `Duplicate value: ${goBadValue(value)}` }),
  tooLong: (field: string, max: number): FieldError => ({ type: 'FieldValueTooLong', field, message: `Too long: may not be longer than ${max}` }),
  tooMany: fieldErrors.tooMany,
  /** An Invalid error whose bad value is printed verbatim (e.g. a Go struct dump). */
  invalidRendered: (field: string, rendered: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` }),
};

export { goSharpV };
