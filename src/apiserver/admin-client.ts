// A client of the server's own administration endpoints under `/_kcp/` (logical clusters, faults,
// stats), authenticated with the admin token: `kcp apiserver cluster ...` and the benchmarks use it.
import { request } from 'node:https';

/** One admin request (`body` sent as JSON); resolves with the JSON answer, rejects with its message (or the HTTP status). */
export function adminCall(base: string, token: string, ca: string, method: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolvePromise, reject) => {
    const req = request(new URL(path, base), { method, ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as { message?: string }) : {};
        if ((res.statusCode ?? 500) >= 400) reject(new Error(body.message ?? `HTTP ${res.statusCode}`));
        else resolvePromise(body);
      });
    });
    req.on('error', (e) => reject(new Error(`cannot reach the API server at ${base}: ${e.message}`)));
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
