// One HTTPS request to a test server, answered with status, headers and the body's bytes (for
// binary bodies and header checks that the JSON clients do not expose).
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export function rawRequest(
  target: { url: string; token: string; caPem: string },
  method: string,
  path: string,
  opts: { headers?: Record<string, string | string[]>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  const base = new URL(target.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        method,
        hostname: base.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: base.port || 443,
        path: `${base.pathname.replace(/\/$/, '')}${path}`,
        ca: target.caPem,
        headers: { Authorization: `Bearer ${target.token}`, ...(opts.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...opts.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.setTimeout(30_000, () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(opts.body);
  });
}
