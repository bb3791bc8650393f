// The operations HTTP endpoint of a manager: `/metrics` (Prometheus text), `/healthz` (the
// process is alive) and `/readyz` (every check passes, e.g. all caches synced). Plain HTTP, as
// controller-runtime serves probes; `?verbose` lists the checks.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { PROMETHEUS_CONTENT_TYPE, type Registry } from './metrics.js';
import { listen } from '../util/servers.js';

/** A named check: returns true or throws / returns a message when failing. */
export type Check = () => boolean | string | Promise<boolean | string>;

export interface OperationsServerOptions {
  port: number;
  host?: string;
  registry: Registry;
  healthChecks: Map<string, Check>;
  readyChecks: Map<string, Check>;
}

export interface OperationsServer {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

async function runChecks(checks: Map<string, Check>): Promise<{ ok: boolean; lines: string[] }> {
  let ok = true;
  const lines: string[] = [];
  for (const [name, check] of checks) {
    let result: boolean | string;
    try {
      result = await check();
    } catch (e) {
      result = e instanceof Error ? e.message : String(e);
    }
    if (result === true) lines.push(`[+]${name} ok`);
    else {
      ok = false;
      lines.push(`[-]${name} failed${typeof result === 'string' ? `: ${result}` : ''}`);
    }
  }
  return { ok, lines };
}

export async function startOperationsServer(opts: OperationsServerOptions): Promise<OperationsServer> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const send = (code: number, type: string, body: string) => {
      res.writeHead(code, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'text/plain', 'method not allowed\n');
    if (url.pathname === '/metrics') return send(200, PROMETHEUS_CONTENT_TYPE, opts.registry.render());
    const checks = url.pathname === '/healthz' || url.pathname === '/livez' ? opts.healthChecks : url.pathname === '/readyz' ? opts.readyChecks : undefined;
    if (!checks) return send(404, 'text/plain', 'not found\n');
    void runChecks(checks).then(
      ({ ok, lines }) => {
        const verbose = url.searchParams.has('verbose') || !ok;
        const body = verbose ? `${lines.join('\n')}\n${ok ? 'ok' : `${url.pathname.slice(1)} check failed`}\n` : 'ok';
        send(ok ? 200 : 500, 'text/plain; charset=utf-8', body);
      },
      () => send(500, 'text/plain', 'check failed\n'),
    );
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const { port, address } = await listen(server, opts.port, opts.host ?? '127.0.0.1');
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}
