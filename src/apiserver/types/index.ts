// The catalog of built-in types, with every package's data loaded.
import './meta.js';
import './core-v1.js';
import './core-v1-pod.js';

export * from './catalog.js';
export { META_KINDS } from './meta.js';
