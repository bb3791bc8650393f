// One HTTP(S) exchange with a size bound on the answer, a timeout and AbortSignal cancellation.
// Failures to connect become ArtifactError('Unreachable'); an answer over the bound, 'TooLarge'.
import http from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import { ArtifactError } from './types.js';

export interface HttpExchange {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Largest answer body accepted, in bytes. */
  maxBytes: number;
  timeoutMs: number;
  /** Extra trusted CA certificates (PEM) for https. */
  ca?: string[];
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export function header(headers: http.IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

export function exchange(x: HttpExchange): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    if (x.signal?.aborted) {
      reject(abortError(x.signal));
      return;
    }
    const secure = x.url.protocol === 'https:';
    const options: https.RequestOptions = {
      method: x.method,
      headers: { ...x.headers, ...(x.body ? { 'content-length': String(x.body.byteLength) } : {}) },
      timeout: x.timeoutMs,
      ...(secure && x.ca?.length ? { ca: [...tlsDefaultCAs(), ...x.ca] } : {}),
    };
    const req = (secure ? https : http).request(x.url, options, (res) => {
      const declared = Number(res.headers['content-length'] ?? '0');
      if (declared > x.maxBytes) {
        res.destroy();
        fail(new ArtifactError('TooLarge', `${x.method} ${x.url.href}: answer of ${declared} bytes exceeds the limit of ${x.maxBytes}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > x.maxBytes) {
          res.destroy();
          fail(new ArtifactError('TooLarge', `${x.method} ${x.url.href}: answer exceeds the limit of ${x.maxBytes} bytes`));
          return;
        }
        chunks.push(c);
      });
      res.on('error', (e) => fail(unreachable(x, e)));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    let settled = false;
    const onAbort = () => {
      req.destroy();
      fail(abortError(x.signal));
    };
    x.signal?.addEventListener('abort', onAbort, { once: true });
    function finish() {
      settled = true;
      x.signal?.removeEventListener('abort', onAbort);
    }
    function done(a: HttpAnswer) {
      if (settled) return;
      finish();
      resolve(a);
    }
    function fail(e: Error) {
      if (settled) return;
      finish();
      reject(e);
    }
    req.on('timeout', () => {
      req.destroy();
      fail(new ArtifactError('Unreachable', `${x.method} ${x.url.href}: no answer within ${x.timeoutMs} ms`));
    });
    req.on('error', (e) => fail(unreachable(x, e)));
    req.end(x.body);
  });
}

function unreachable(x: HttpExchange, e: Error): ArtifactError {
  return new ArtifactError('Unreachable', `${x.method} ${x.url.href}: ${e.message}`);
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new DOMException('the operation was aborted', 'AbortError');
}

/** Node's bundled roots, so that an extra CA adds to them instead of replacing them. */
function tlsDefaultCAs(): readonly string[] {
  return tls.rootCertificates;
}
