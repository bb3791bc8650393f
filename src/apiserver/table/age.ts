// Human-readable durations, as kubectl and the server-side printers show ages (`0s`, `5m2s`, `3d`).

/** k8s.io/apimachinery/pkg/util/duration.HumanDuration for a duration in milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** Age of an RFC 3339 timestamp at `now`; `<unknown>` when absent, `<invalid>` when unparsable. */
export function ageSince(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return '<invalid>';
  return humanDuration(now.getTime() - t);
}

/** RFC 3339 in UTC without fractional seconds, as Go's time.RFC3339 formats a metav1.Time. */
export function rfc3339(timestamp: unknown): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '0001-01-01T00:00:00Z';
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return timestamp;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
