// Names of the development-only embedded landscape: the Gardener simulator's failure injection and
// admission webhook, and the API groups of the demo modules (demo-modules/). They never reach a real
// cluster, so they live under the reserved top-level domain `.example` (RFC 2606), where they cannot
// collide with anyone's names (docs/api.md, "Names").

/** Domain of the Gardener simulator's own names. */
export const SIMULATOR_DOMAIN = 'simulator.example';
/** Domain of the demo modules: each module's API group is `<module>.demo.example`, its OCM component name `demo.example/module/<module>`. */
export const DEMO_DOMAIN = 'demo.example';

/**
 * Failure injection: the current (or next) operation of a Shoot carrying this annotation ends with
 * this error code in `status.lastErrors[].codes`. A non-retryable code (see `nonRetryableErrorCodes`)
 * ends the operation in `Failed`, any other in `Error`.
 */
export const AnnotationFailWith = `${SIMULATOR_DOMAIN}/fail-with`;
/**
 * `"true"`: after `recoverAfterMs` the failed operation is retried and succeeds. `"false"`: it stays
 * in `Error` / `Failed`. Default: `"true"` for retryable codes, `"false"` for non-retryable ones.
 */
export const AnnotationFailRecover = `${SIMULATOR_DOMAIN}/fail-recover`;
/** Comma-separated operation types the failure applies to (default `Create,Reconcile`). */
export const AnnotationFailOperations = `${SIMULATOR_DOMAIN}/fail-operations`;
/** Failure description written into `lastErrors[].description` (optional). */
export const AnnotationFailMessage = `${SIMULATOR_DOMAIN}/fail-message`;

/**
 * Refusal injection: while a Shoot carries this annotation, Gardener's admission answers every update
 * that changes its spec with this HTTP code (`409` Conflict, `403` Forbidden, `401` Unauthorized,
 * `500`, ...), as the real Gardener API now and then does. Metadata-only updates pass, so removing
 * the annotation works.
 */
export const AnnotationRefuseSpecUpdates = `${SIMULATOR_DOMAIN}/refuse-spec-updates`;

/** Name of the simulator's validating webhook for Shoots (it appears in denial messages). */
export const SHOOT_WEBHOOK_NAME = `validate.shoots.${SIMULATOR_DOMAIN}`;

/** API groups of the demo modules' custom resources (as their manifests in demo-modules/ define them). */
export const DemoModuleGroups = {
  autoscaler: `autoscaler.${DEMO_DOMAIN}`,
  functions: `functions.${DEMO_DOMAIN}`,
  gateway: `gateway.${DEMO_DOMAIN}`,
} as const;
