// When a kubeconfig is due for rotation. Upstream (infrastructure-manager): the kubeconfig is
// requested valid for `expiration`; the rotation period is `minimalRotationTimeRatio x expiration`
// and a Secret is rotated once `rotationPeriodRatio x rotationPeriod` has passed since its
// `last-sync` annotation (defaults 0.6 and 0.95: after 57 % of the validity).

/** Upstream default validity of a kubeconfig: 24 h. */
export const DEFAULT_EXPIRATION_SECONDS = 24 * 60 * 60;
/** Upstream `--minimal-rotation-time` default. */
export const DEFAULT_MINIMAL_ROTATION_TIME_RATIO = 0.6;
/** Upstream constant `rotationPeriodRatio`. */
export const DEFAULT_ROTATION_PERIOD_RATIO = 0.95;

export interface RotationPolicy {
  expirationSeconds: number;
  minimalRotationTimeRatio: number;
  rotationPeriodRatio: number;
}

export function rotationPolicy(p: Partial<RotationPolicy> = {}): RotationPolicy {
  const policy = {
    expirationSeconds: p.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS,
    minimalRotationTimeRatio: p.minimalRotationTimeRatio ?? DEFAULT_MINIMAL_ROTATION_TIME_RATIO,
    rotationPeriodRatio: p.rotationPeriodRatio ?? DEFAULT_ROTATION_PERIOD_RATIO,
  };
  if (!(policy.expirationSeconds > 0)) throw new Error(`expirationSeconds must be positive, got ${policy.expirationSeconds}`);
  for (const k of ['minimalRotationTimeRatio', 'rotationPeriodRatio'] as const) {
    if (!(policy[k] > 0 && policy[k] <= 1)) throw new Error(`${k} must be in (0, 1], got ${policy[k]}`);
  }
  return policy;
}

/**
 * How long after the last sync a kubeconfig is rotated, in milliseconds: the ratios applied to the
 * requested validity, or to the granted one (`expiresAtMs - lastSyncMs`) when that is shorter.
 */
export function rotationAfterMs(p: RotationPolicy, lastSyncMs?: number, expiresAtMs?: number): number {
  const requestedMs = p.expirationSeconds * 1000;
  const grantedMs = lastSyncMs !== undefined && expiresAtMs !== undefined ? Math.max(0, expiresAtMs - lastSyncMs) : requestedMs;
  return Math.round(p.rotationPeriodRatio * p.minimalRotationTimeRatio * Math.min(requestedMs, grantedMs));
}

/** The `last-sync` annotation value: RFC 3339 in UTC, whole seconds, as upstream writes it. */
export function formatLastSync(now: Date): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Epoch milliseconds of a `last-sync` value, or undefined when absent or unreadable. */
export function parseLastSync(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}

/** Milliseconds until the kubeconfig synced at `lastSyncMs` must be rotated (<= 0: now). */
export function msUntilRotation(p: RotationPolicy, lastSyncMs: number | undefined, nowMs: number, expiresAtMs?: number): number {
  if (lastSyncMs === undefined) return 0;
  return lastSyncMs + rotationAfterMs(p, lastSyncMs, expiresAtMs) - nowMs;
}
