// The maintenance-window policy of the lifecycle manager, in upstream's format (the `resolver`
// package of kyma-project/lifecycle-manager, mounted there as `/etc/maintenance-policy/policy.json`
// from a ConfigMap):
//
//   { "rules": [ { "match": { "region": "europe|asia", "plan": "...", "globalAccountID": "...", "platformRegion": "..." },
//                  "windows": [ { "begin": "2026-01-02T20:00:00Z", "end": "2026-01-02T22:00:00Z" },
//                               { "days": ["Sat", "Sun"], "begin": "01:00:00+00:00", "end": "05:00:00+00:00" } ] } ],
//     "default": { "days": ["Mon", ...], "begin": "...", "end": "..." } }
//
// A rule matches a runtime when any of its patterns (unanchored regular expressions) matches the
// runtime's non-empty value. The first matching rule gives the windows; without a match, or when the
// matching rule has no usable window, the default does. Windows without `days` are absolute (RFC 3339);
// with `days` (three-letter weekdays) `begin` and `end` are times of day with a zone, repeating weekly.

export class MaintenancePolicyError extends Error {
  override name = 'MaintenancePolicyError';
}

/** The runtime attributes a rule can match (read from the Kyma's labels). */
export interface MaintenanceRuntime {
  globalAccountID?: string;
  plan?: string;
  region?: string;
  platformRegion?: string;
}

const MATCH_FIELDS = ['globalAccountID', 'plan', 'region', 'platformRegion'] as const;

type WindowTime = { kind: 'instant'; ms: number } | { kind: 'timeOfDay'; seconds: number; offsetMinutes: number } | { kind: 'unset' };

export interface PolicyWindow {
  days: string[];
  begin: WindowTime;
  end: WindowTime;
}

export interface PolicyRule {
  match: Partial<Record<(typeof MATCH_FIELDS)[number], RegExp>>;
  windows: PolicyWindow[];
}

export interface MaintenanceWindowPolicy {
  rules: PolicyRule[];
  default: PolicyWindow;
}

export interface ResolvedWindow {
  begin: Date;
  end: Date;
}

export interface ResolveOptions {
  now: Date;
  /** Also return a window that has begun, if it still lasts at least `minDurationMs`. */
  ongoing: boolean;
  minDurationMs: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_MS = 24 * 60 * 60_000;

/** Parses a policy document; every problem is a MaintenancePolicyError naming the field. */
export function parseMaintenancePolicy(text: string, where = 'maintenance window policy'): MaintenanceWindowPolicy {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new MaintenancePolicyError(`${where}: not JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new MaintenancePolicyError(`${where}: not a JSON object`);
  const rules = doc.rules ?? [];
  if (!Array.isArray(rules)) throw new MaintenancePolicyError(`${where}: rules must be a list`);
  return {
    rules: rules.map((r, i) => parseRule(r, `${where}: rules[${i}]`)),
    default: parseWindow(doc.default ?? {}, `${where}: default`),
  };
}

function parseRule(r: unknown, where: string): PolicyRule {
  if (!isObject(r)) throw new MaintenancePolicyError(`${where}: not an object`);
  const match: PolicyRule['match'] = {};
  const m = r.match ?? {};
  if (!isObject(m)) throw new MaintenancePolicyError(`${where}.match: not an object`);
  for (const field of MATCH_FIELDS) {
    const pattern = m[field];
    if (pattern === undefined || pattern === '') continue;
    if (typeof pattern !== 'string') throw new MaintenancePolicyError(`${where}.match.${field}: not a string`);
    try {
      match[field] = new RegExp(pattern);
    } catch (e) {
      throw new MaintenancePolicyError(`${where}.match.${field}: ${(e as Error).message}`);
    }
  }
  const windows = r.windows ?? [];
  if (!Array.isArray(windows)) throw new MaintenancePolicyError(`${where}.windows: not a list`);
  return { match, windows: windows.map((w, i) => parseWindow(w, `${where}.windows[${i}]`)) };
}

function parseWindow(w: unknown, where: string): PolicyWindow {
  if (!isObject(w)) throw new MaintenancePolicyError(`${where}: not an object`);
  const days = w.days ?? [];
  if (!Array.isArray(days) || days.some((d) => typeof d !== 'string')) throw new MaintenancePolicyError(`${where}.days: not a list of weekdays`);
  return { days: days as string[], begin: parseTime(w.begin, `${where}.begin`), end: parseTime(w.end, `${where}.end`) };
}

const TIME_OF_DAY = /^(\d{2}):(\d{2}):(\d{2})(Z|([+-])(\d{2}):(\d{2}))$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function parseTime(v: unknown, where: string): WindowTime {
  if (v === undefined) return { kind: 'unset' };
  if (typeof v !== 'string') throw new MaintenancePolicyError(`${where}: not a string`);
  if (INSTANT.test(v)) {
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return { kind: 'instant', ms };
  }
  const t = TIME_OF_DAY.exec(v);
  if (t) {
    const offsetMinutes = t[4] === 'Z' ? 0 : (t[5] === '-' ? -1 : 1) * (Number(t[6]) * 60 + Number(t[7]));
    return { kind: 'timeOfDay', seconds: Number(t[1]) * 3600 + Number(t[2]) * 60 + Number(t[3]), offsetMinutes };
  }
  throw new MaintenancePolicyError(`${where}: ${JSON.stringify(v)} is neither an RFC 3339 time nor a time of day with a zone (15:04:05+01:00)`);
}

/** The next window for `runtime`, or undefined when neither its rule nor the default gives one. */
export function resolveWindow(policy: MaintenanceWindowPolicy, runtime: MaintenanceRuntime, opts: ResolveOptions): ResolvedWindow | undefined {
  const rule = policy.rules.find((r) => matches(r, runtime));
  if (rule) {
    for (const w of rule.windows) {
      const found = nextWindow(w, opts);
      if (found) return found;
    }
  }
  return nextWindow(policy.default, opts);
}

function matches(rule: PolicyRule, runtime: MaintenanceRuntime): boolean {
  return MATCH_FIELDS.some((f) => {
    const value = runtime[f];
    const pattern = rule.match[f];
    return !!pattern && !!value && pattern.test(value);
  });
}

function nextWindow(w: PolicyWindow, opts: ResolveOptions): ResolvedWindow | undefined {
  if (w.days.length === 0) {
    // Absolute times; an unset bound is the zero time, which never gives a window.
    const begin = w.begin.kind === 'instant' ? w.begin.ms : Number.NEGATIVE_INFINITY;
    const end = w.end.kind === 'instant' ? w.end.ms : Number.NEGATIVE_INFINITY;
    return within(opts, begin, end);
  }
  if (w.begin.kind !== 'timeOfDay' || w.end.kind !== 'timeOfDay') return undefined;
  // Today's window (the date of `now` in UTC, the times in their own zone), then day by day for a week.
  const today = Date.UTC(opts.now.getUTCFullYear(), opts.now.getUTCMonth(), opts.now.getUTCDate());
  let begin = today + (w.begin.seconds - w.begin.offsetMinutes * 60) * 1000;
  let end = today + (w.end.seconds - w.end.offsetMinutes * 60) * 1000;
  if (end <= begin) end += DAY_MS;
  for (let i = 0; i < 8; i++, begin += DAY_MS, end += DAY_MS) {
    // The weekday of the begin in the begin's own zone.
    const weekday = WEEKDAYS[new Date(begin + w.begin.offsetMinutes * 60_000).getUTCDay()];
    if (!w.days.includes(weekday)) continue;
    const found = within(opts, begin, end);
    if (found) return found;
  }
  return undefined;
}

function within(opts: ResolveOptions, begin: number, end: number): ResolvedWindow | undefined {
  const now = opts.now.getTime();
  const usable = opts.ongoing ? now + opts.minDurationMs < end : now < begin;
  return usable && Number.isFinite(begin) ? { begin: new Date(begin), end: new Date(end) } : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
