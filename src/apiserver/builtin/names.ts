// String format checks of k8s.io/apimachinery/pkg/util/validation, returning its exact messages.

function regexError(msg: string, format: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${format}')`;
  // Upstream joins "'a', " with " or ", which leaves two spaces between examples.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${format}')`;
}

export const maxLenError = (n: number): string => `must be no more than ${n} characters`;
export const EMPTY_ERROR = 'must be non-empty';
export const NEGATIVE_ERROR = 'must be greater than or equal to 0';
export const inclusiveRangeError = (lo: number, hi: number): string => `must be between ${lo} and ${hi}, inclusive`;

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_LABEL_MSG = regexError("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL_FMT, 'my-name', '123-abc');

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1123_SUBDOMAIN_MSG = regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN_FMT, 'example.com');

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_RE = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const DNS1035_LABEL_MSG = regexError("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL_FMT, 'my-name', 'abc-123');

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MSG = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MSG = regexError("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345');

const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_RE = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);
const CONFIG_MAP_KEY_MSG = regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name');

const PERCENT_FMT = '[0-9]+%';
const PERCENT_RE = new RegExp(`^${PERCENT_FMT}$`);
const PERCENT_MSG = regexError("a valid percent string must be a numeric string followed by an ending '%'", PERCENT_FMT, '1%', '93%');

const ENV_VAR_FMT = '[-._a-zA-Z][-._a-zA-Z0-9]*';
const ENV_VAR_RE = new RegExp(`^${ENV_VAR_FMT}$`);
const ENV_VAR_MSG = regexError("a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit", ENV_VAR_FMT, 'my.env-name', 'MY_ENV.NAME', 'MyEnvName1');

export function isDns1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!DNS1123_LABEL_RE.test(v)) errs.push(DNS1123_LABEL_MSG);
  return errs;
}

export function isDns1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!DNS1123_SUBDOMAIN_RE.test(v)) errs.push(DNS1123_SUBDOMAIN_MSG);
  return errs;
}

export function isDns1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!DNS1035_LABEL_RE.test(v)) errs.push(DNS1035_LABEL_MSG);
  return errs;
}

export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${EMPTY_ERROR}`);
    else for (const m of isDns1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [`a qualified name ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push(`name part ${EMPTY_ERROR}`);
  else if (name.length > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${regexError(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 63) errs.push(maxLenError(63));
  if (!LABEL_VALUE_RE.test(v)) errs.push(LABEL_VALUE_MSG);
  return errs;
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push(maxLenError(253));
  if (!CONFIG_MAP_KEY_RE.test(v)) errs.push(CONFIG_MAP_KEY_MSG);
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

export function isValidPercent(v: string): string[] {
  return PERCENT_RE.test(v) ? [] : [PERCENT_MSG];
}

export function isEnvVarName(v: string): string[] {
  const errs: string[] = [];
  if (!ENV_VAR_RE.test(v)) errs.push(ENV_VAR_MSG);
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** IsValidPortName: IANA service names. */
export function isValidPortName(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 15) errs.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(v)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(v)) errs.push('must contain at least one letter (a-z)');
  if (v.includes('--')) errs.push('must not contain consecutive hyphens');
  if (v.length > 0 && (v.startsWith('-') || v.endsWith('-'))) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** path.IsValidPathSegmentName, used for RBAC names and by the generic registry for every kind. */
export function isValidPathSegmentName(v: string): string[] {
  if (v === '.' || v === '..') return [`may not be '${v}'`];
  const errs: string[] = [];
  if (v.includes('/')) errs.push("may not contain '/'");
  if (v.includes('%')) errs.push("may not contain '%'");
  return errs;
}

export type NameRule = 'subdomain' | 'label' | 'dns1035' | 'pathSegment';

/** Name validation of ObjectMeta; `prefix` is for generateName, whose trailing '-' is allowed. */
export function checkName(rule: NameRule, name: string, prefix = false): string[] {
  if (rule === 'pathSegment') return prefix ? isValidPathSegmentName(name).filter((m) => !m.startsWith('may not be')) : isValidPathSegmentName(name);
  // Upstream masks "x-" as "a" so that a generateName prefix passes the same check as a full name.
  const v = prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
  if (rule === 'label') return isDns1123Label(v);
  if (rule === 'dns1035') return isDns1035Label(v);
  return isDns1123Subdomain(v);
}
