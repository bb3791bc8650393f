// IPv4 prefix arithmetic for splitting a node network into per-zone subnets (upstream uses Go's
// netip.Prefix and big.Int; IPv4 fits a JavaScript number exactly).
import { isIPv4 } from 'node:net';

export interface Ipv4Prefix {
  /** Network address as an unsigned 32-bit integer (host bits cleared). */
  base: number;
  bits: number;
}

/** Parses `a.b.c.d/n`; undefined when it is not an IPv4 CIDR. Host bits are cleared, as netip.Prefix.Masked does. */
export function parseIpv4Prefix(text: string): Ipv4Prefix | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = text.slice(0, slash);
  const bitsText = text.slice(slash + 1);
  if (!isIPv4(ip) || !/^\d{1,2}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > 32) return undefined;
  const addr = ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
  return { base: maskAddress(addr, bits), bits };
}

function maskAddress(addr: number, bits: number): number {
  const size = 2 ** (32 - bits);
  return Math.floor(addr / size) * size;
}

export function formatIpv4(addr: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(addr / 2 ** shift) % 256).join('.');
}

export function formatPrefix(addr: number, bits: number): string {
  return `${formatIpv4(addr)}/${bits}`;
}

/** Number of addresses in a prefix of `bits` length. */
export function prefixSize(bits: number): number {
  return 2 ** (32 - bits);
}

export function containsAddress(prefix: Ipv4Prefix, addr: number): boolean {
  return addr >= prefix.base && addr < prefix.base + prefixSize(prefix.bits);
}
