// Who is calling the listener: the Common Name of a client certificate (the runtime-id), read from
// the TLS connection the listener terminated itself, or from the `X-Forwarded-Client-Cert` header
// of a gateway that terminated mutual TLS in front of it (Envoy's format, as Istio sends it).
import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { splitPemCertificates } from '../util/x509.js';

export const XFCC_HEADER = 'x-forwarded-client-cert';

/** Why a caller was refused; also the `reason` label of the rejection metric. */
export type IdentityRefusal =
  | 'no-client-certificate'
  | 'certificate-untrusted'
  | 'certificate-expired'
  | 'forwarded-certificate-untrusted'
  | 'malformed-forwarded-certificate'
  | 'empty-common-name';

export type Identity = { runtimeId: string } | { refused: IdentityRefusal; message: string };

/** Splits PEM text into its certificates. */
export function certificatesOf(pem: string): X509Certificate[] {
  return splitPemCertificates(pem).map((b) => new X509Certificate(b));
}

function commonNameOfSubject(subject: string): string {
  // node:crypto renders the subject one attribute per line ("CN=x\nO=y"); Envoy as "CN=x,O=y".
  for (const part of subject.split(/[\n,]/)) {
    const [k, ...v] = part.split('=');
    if (k.trim() === 'CN') return v.join('=').trim();
  }
  return '';
}

function commonName(cn: unknown): string {
  if (Array.isArray(cn)) return typeof cn[0] === 'string' ? cn[0] : '';
  return typeof cn === 'string' ? cn : '';
}

/** The identity of a caller on a connection the listener terminated with `requestCert`. */
export function identityOfTlsSocket(socket: TLSSocket): Identity {
  const peer = socket.getPeerCertificate();
  if (!peer || Object.keys(peer).length === 0) return { refused: 'no-client-certificate', message: 'a client certificate is required' };
  if (!socket.authorized) {
    const why = String(socket.authorizationError ?? 'not trusted');
    if (why === 'CERT_HAS_EXPIRED') return { refused: 'certificate-expired', message: 'the client certificate has expired' };
    return { refused: 'certificate-untrusted', message: `the client certificate is not issued by the watcher CA (${why})` };
  }
  const cn = commonName(peer.subject?.CN);
  if (!cn) return { refused: 'empty-common-name', message: 'the client certificate has no Common Name' };
  return { runtimeId: cn };
}

/** Splits a header value on `sep` outside double quotes. */
function splitOutsideQuotes(value: string, sep: string): string[] {
  const out: string[] = [];
  let current = '';
  let quoted = false;
  for (const ch of value) {
    if (ch === '"') quoted = !quoted;
    if (ch === sep && !quoted) {
      out.push(current);
      current = '';
    } else current += ch;
  }
  out.push(current);
  return out;
}

/** The fields of the element a gateway added last to `X-Forwarded-Client-Cert`. */
export function parseForwardedClientCert(header: string): Record<string, string> {
  const elements = splitOutsideQuotes(header, ',').filter((e) => e.trim());
  const last = elements[elements.length - 1] ?? '';
  const fields: Record<string, string> = {};
  for (const pair of splitOutsideQuotes(last, ';')) {
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const key = pair.slice(0, eq).trim();
    let value = pair.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    fields[key] = value;
  }
  return fields;
}

/**
 * The identity in a trusted gateway's `X-Forwarded-Client-Cert`. With `trusted` CAs the forwarded
 * certificate is checked again (issuer and validity), so a misconfigured gateway cannot widen who
 * gets in.
 */
export function identityOfForwardedCert(header: string, trusted: X509Certificate[] | undefined, now: Date = new Date()): Identity {
  const fields = parseForwardedClientCert(header);
  let cert: X509Certificate | undefined;
  if (fields.Cert) {
    try {
      cert = new X509Certificate(decodeURIComponent(fields.Cert));
    } catch {
      return { refused: 'malformed-forwarded-certificate', message: 'the forwarded client certificate cannot be parsed' };
    }
  }
  if (!cert && !fields.Subject) return { refused: 'no-client-certificate', message: 'the gateway forwarded no client certificate' };
  if (trusted && trusted.length > 0) {
    if (!cert) return { refused: 'no-client-certificate', message: 'the gateway forwarded no client certificate (Cert field)' };
    const c = cert;
    if (!trusted.some((ca) => c.checkIssued(ca) && c.verify(ca.publicKey))) {
      return { refused: 'certificate-untrusted', message: 'the forwarded client certificate is not issued by the watcher CA' };
    }
    if (new Date(c.validTo) < now || new Date(c.validFrom) > now) return { refused: 'certificate-expired', message: 'the forwarded client certificate is not valid now' };
  }
  const cn = cert ? commonNameOfSubject(cert.subject) : commonNameOfSubject(fields.Subject);
  if (!cn) return { refused: 'empty-common-name', message: 'the client certificate has no Common Name' };
  return { runtimeId: cn };
}
