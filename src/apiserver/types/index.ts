// The catalog of built-in types, with every package's data loaded.
import './meta.js';
import './core-v1.js';
import './core-v1-pod.js';
import './apps-v1.js';
import './batch-v1.js';
import './networking-v1.js';
import './policy-v1.js';
import './scheduling-v1.js';
import './coordination-v1.js';
import './events-v1.js';
import './rbac-v1.js';
import './autoscaling-v1.js';
import './autoscaling-v2.js';
import './admissionregistration-v1.js';
import './apiextensions-v1.js';
import './authentication-v1.js';
import './authorization-v1.js';

export * from './catalog.js';
export { META_KINDS } from './meta.js';
