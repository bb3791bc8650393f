// CIDR parsing and overlap, IPv4 and IPv6, for the Shoot networking checks.

export interface ParsedCidr {
  family: 4 | 6;
  /** First address of the network. */
  base: bigint;
  prefix: number;
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(Number(p));
  }
  return v;
}

function parseIPv6(s: string): bigint | undefined {
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let v = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  return v;
}

export function parseCidr(text: string): ParsedCidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const addr = text.slice(0, slash);
  const prefixText = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const family = addr.includes(':') ? 6 : 4;
  const bits = family === 4 ? 32 : 128;
  if (prefix > bits) return undefined;
  const value = family === 4 ? parseIPv4(addr) : parseIPv6(addr);
  if (value === undefined) return undefined;
  const hostBits = BigInt(bits - prefix);
  return { family, base: (value >> hostBits) << hostBits, prefix };
}

/** Do two networks share an address? */
export function cidrsOverlap(a: ParsedCidr, b: ParsedCidr): boolean {
  if (a.family !== b.family) return false;
  const bits = a.family === 4 ? 32 : 128;
  const shorter = Math.min(a.prefix, b.prefix);
  const shift = BigInt(bits - shorter);
  return a.base >> shift === b.base >> shift;
}
