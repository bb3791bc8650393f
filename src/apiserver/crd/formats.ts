// String formats kube-apiserver checks in CRD schemas (the go-openapi strfmt registry it uses).
// Formats not listed here are accepted without checks, as upstream does for unknown formats.
import { isIP } from 'node:net';

const uuidRe = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const uuidVersionRe = (v: number) => new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, 'i');
const hostnameRe = /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const dateTimeRe = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})?$/;
const dateRe = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const durationRe = /^(-?\d+(\.\d+)?\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$/;
const macRe = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$|^([0-9a-fA-F]{4}\.){2}[0-9a-fA-F]{4}$/;
const emailRe = /^[^\s@]+@[^\s@]+$/;
const base64Re = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const hexColorRe = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const rgbColorRe = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;

function isCidr(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  const family = isIP(ip);
  if (family === 0 || !/^\d+$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

function isUri(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

const checks: Record<string, (s: string) => boolean> = {
  'date-time': (s) => dateTimeRe.test(s),
  datetime: (s) => dateTimeRe.test(s),
  date: (s) => dateRe.test(s),
  duration: (s) => durationRe.test(s),
  byte: (s) => base64Re.test(s),
  uuid: (s) => uuidRe.test(s),
  uuid3: (s) => uuidVersionRe(3).test(s),
  uuid4: (s) => uuidVersionRe(4).test(s),
  uuid5: (s) => uuidVersionRe(5).test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: isCidr,
  mac: (s) => macRe.test(s),
  hostname: (s) => s.length <= 255 && hostnameRe.test(s),
  email: (s) => emailRe.test(s),
  uri: isUri,
  hexcolor: (s) => hexColorRe.test(s),
  rgbcolor: (s) => rgbColorRe.test(s),
};

/** True when `format` is known and `value` violates it. */
export function violatesFormat(format: string, value: string): boolean {
  const check = checks[format];
  return check !== undefined && !check(value);
}

export function isKnownFormat(format: string): boolean {
  return checks[format] !== undefined;
}
