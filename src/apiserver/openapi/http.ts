// Serving /openapi/v2 and /openapi/v3 with the headers kube-apiserver (kube-openapi's handlers)
// sends: an ETag on every document and conditional requests (If-None-Match -> 304); on /openapi/v3
// documents, a `hash` query naming the current content makes the answer cacheable for a year
// (Cache-Control: public, immutable), and a stale hash is redirected (301) to the current one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogicalCluster } from '../cluster.js';
import { openApiV2, openApiV3, openApiV3Discovery } from './documents.js';

/** What kubectl asks for, and the name the answer carries (Go's mime parser rejects the `@`). */
const V2_PROTOBUF_ACCEPTED = ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf'];
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** Whether `path` (below the cluster prefix) is an OpenAPI path this module answers. */
export function isOpenApiPath(path: string): boolean {
  return path === '/openapi/v2' || path === '/openapi/v3' || path.startsWith('/openapi/v3/');
}

function notModified(req: IncomingMessage, quotedEtag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  return header === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === quotedEtag);
}

function send(req: IncomingMessage, res: ServerResponse, etag: string, contentType: string, body: (string | Buffer)[], headers: Record<string, string> = {}): void {
  const quoted = `"${etag}"`;
  const common = { ETag: quoted, Vary: 'Accept', ...headers };
  if (notModified(req, quoted)) {
    res.writeHead(304, common);
    res.end();
    return;
  }
  const length = body.reduce((n, b) => n + (typeof b === 'string' ? Buffer.byteLength(b) : b.length), 0);
  res.writeHead(200, { 'Content-Type': contentType, 'Content-Length': length, ...common });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  for (const b of body) res.write(b);
  res.end();
}

/** Answers an OpenAPI request of one logical cluster; `prefix` is the cluster's URL prefix (`/clusters/<name>` or empty). */
export function serveOpenApi(req: IncomingMessage, res: ServerResponse, cluster: LogicalCluster, path: string, query: URLSearchParams, prefix: string): void {
  const accept = req.headers.accept ?? '*/*';
  if (path === '/openapi/v2') {
    const doc = openApiV2(cluster);
    if (V2_PROTOBUF_ACCEPTED.some((t) => accept.includes(t))) return send(req, res, doc.etag, V2_PROTOBUF, doc.protobuf);
    return send(req, res, doc.etag, 'application/json', doc.json);
  }
  if (path === '/openapi/v3') {
    const doc = openApiV3Discovery(cluster);
    return send(req, res, doc.etag, 'application/json', [doc.json]);
  }
  const gv = path.slice('/openapi/v3/'.length).replace(/\/$/, '');
  const doc = openApiV3(cluster, gv);
  if (!doc) {
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('404 page not found\n');
    return;
  }
  if (!/(^|,)\s*(application\/json|application\/\*|\*\/\*)\s*(;|,|$)/.test(accept)) {
    // Only the JSON form of v3 documents is served (kubectl asks for JSON).
    res.writeHead(406, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('406 Not Acceptable: the OpenAPI v3 documents are served as application/json\n');
    return;
  }
  const hash = query.get('hash');
  if (hash) {
    if (hash !== doc.etag) {
      res.writeHead(301, { Location: `${prefix}/openapi/v3/${gv}?hash=${doc.etag}`, 'Content-Length': 0 });
      res.end();
      return;
    }
    const expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
    return send(req, res, doc.etag, 'application/json', [doc.json], { 'Cache-Control': 'public, immutable', Expires: expires });
  }
  return send(req, res, doc.etag, 'application/json', [doc.json]);
}
