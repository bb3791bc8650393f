// Version ordering for Kubernetes and machine image versions (`1.31.2`, `1592.9.0`).

function parts(version: string): number[] | undefined {
  const m = /^v?(\d+(?:\.\d+)*)$/.exec(version.trim());
  return m ? m[1].split('.').map(Number) : undefined;
}

/**
 * Compares two dotted numeric versions: negative when a < b, 0 when equal, positive when a > b;
 * undefined when either is not a version (then neither is preferred, as upstream's semver check fails).
 */
export function compareVersions(a: string, b: string): number | undefined {
  const pa = parts(a);
  const pb = parts(b);
  if (!pa || !pb) return undefined;
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** The desired version, unless the current one is a higher version (Gardener's auto-update must not be undone). */
export function neverDowngrade(desired: string, current: string | undefined): string {
  if (current === undefined || current === '' || current === desired) return desired;
  const cmp = compareVersions(desired, current);
  return cmp !== undefined && cmp < 0 ? current : desired;
}
