// A runtime cluster for lifecycle-manager tests without Gardener (src/landscape/runtime-cluster.ts).
export { type AttachedRuntime as TestRuntime, attachRuntimeCluster as createTestRuntime } from '../../src/landscape/runtime-cluster.js';
