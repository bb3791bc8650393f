// What both versions of operator.kyma-project.io build on (upstream's api/shared package): the
// group and its versions, module names, the State enum and the last operation of a control loop.
import { enumOf, object, req, string } from '../schema.js';
import { OPERATOR_GROUP, stateValues } from './constants.js';

export const GROUP = OPERATOR_GROUP;
export const V1BETA2 = 'v1beta2';
export const V1ALPHA1 = 'v1alpha1';

/** Module names: lower-case words of at least three letters joined by dashes. */
export const MODULE_NAME_PATTERN = '^([a-z]{3,}(-[a-z]{3,})*)?$';

export function state(description: string) {
  return enumOf(stateValues, { description });
}

export const lastOperation = object(
  {
    operation: req(string({ description: 'What the controller did last, or the error it met.' })),
    lastUpdateTime: string({ format: 'date-time', description: 'When the operation was recorded.' }),
  },
  { description: 'The last operation of the control loop on this object.' },
);
