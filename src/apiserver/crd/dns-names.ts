// IsDNS1035Label / IsDNS1123Subdomain with the messages of k8s.io/apimachinery's validation package.

const dns1035Fmt = '[a-z]([-a-z0-9]*[a-z0-9])?';
const dns1035Re = new RegExp(`^${dns1035Fmt}$`);
const dns1123LabelFmt = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainRe = new RegExp(`^${dns1123SubdomainFmt}$`);

function regexError(msg: string, fmt: string, examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join('or ')}regex used for validation is '${fmt}')`;
}

export function isDns1035Label(value: string): string[] {
  const out: string[] = [];
  if (value.length > 63) out.push('must be no more than 63 characters');
  if (!dns1035Re.test(value)) out.push(regexError('a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character', dns1035Fmt, ['my-name', 'abc-123']));
  return out;
}

export function isDns1123Subdomain(value: string): string[] {
  const out: string[] = [];
  if (value.length > 253) out.push('must be no more than 253 characters');
  if (!dns1123SubdomainRe.test(value)) out.push(regexError("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", dns1123SubdomainFmt, ['example.com']));
  return out;
}
