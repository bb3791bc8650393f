// The HTTP side of the protobuf codec: which requests and answers use it, and how they are read and
// written. Built-in kinds the type catalog describes speak protobuf; custom resources never do
// (kube-apiserver's custom resource handler has no protobuf serializer); Tables stay JSON.
import type { ServerResponse } from 'node:http';
import { badRequest, StatusError } from '../errors.js';
import { groupVersion, type ResourceType } from '../resources.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { decodeObject, encodeObject, typeNameOf } from './codec.js';
import { watchFrame } from './envelope.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_WATCH = `${PROTOBUF};stream=watch`;

/** Whether protobuf is spoken for a resource: a built-in kind with catalog facts. */
export function servesProtobuf(t: ResourceType): boolean {
  return !t.crd && typeNameOf(groupVersion(t), t.kind) !== undefined;
}

/** The media types a request body for the resource may have, as kube's 415 and 406 messages list them. */
export function acceptedMediaTypes(t: ResourceType): string {
  return servesProtobuf(t) ? `application/json, application/yaml, ${PROTOBUF}` : 'application/json, application/yaml';
}

export function unsupportedMediaType(t: ResourceType): StatusError {
  return new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${acceptedMediaTypes(t)}`);
}

export function isProtobuf(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';')[0].trim() === PROTOBUF;
}

/**
 * Whether to answer in protobuf: the first media type of `Accept` the server can write is protobuf
 * and the resource has it. A client that accepts only protobuf for a resource without it gets 406.
 */
export function answersInProtobuf(accept: string | undefined, t: ResourceType): boolean {
  if (accept === undefined || !accept.includes(PROTOBUF)) return false; // JSON clients pay for nothing more
  for (const range of accept.split(',')) {
    const [type, ...params] = range.split(';').map((s) => s.trim());
    if (type === PROTOBUF) {
      // Protobuf Tables and metadata-only views are not served.
      if (!params.some((p) => p.startsWith('as=')) && servesProtobuf(t)) return true;
    } else if (type === 'application/json' || type === 'application/yaml' || type === 'application/*' || type === '*/*') {
      return false;
    }
  }
  throw new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${acceptedMediaTypes(t)}`);
}

/** A create or update body in protobuf as the JSON object it describes; 415 for resources without protobuf. */
export function decodeBody(t: ResourceType, body: Buffer): ObjectWithMeta {
  if (!servesProtobuf(t)) throw unsupportedMediaType(t);
  return decodeOrBadRequest(body, groupVersion(t), t.kind) as ObjectWithMeta;
}

/** A DeleteOptions body in protobuf (kube reads them for every built-in resource, never for custom resources). */
export function decodeDeleteOptions(t: ResourceType, body: Buffer): Record<string, unknown> {
  if (t.crd) throw unsupportedMediaType(t);
  const { kind: _k, apiVersion: _a, ...options } = decodeOrBadRequest(body, 'meta.k8s.io/v1', 'DeleteOptions');
  return options;
}

function decodeOrBadRequest(body: Buffer, apiVersion: string, kind: string): Record<string, unknown> {
  try {
    return decodeObject(body, { apiVersion, kind });
  } catch (e) {
    throw badRequest(`the object provided is unrecognized (must be of type ${kind}): ${(e as Error).message} (${summarize(body)})`);
  }
}

/** kube's summary of an undecodable body in its error message: the first 30 bytes in hex. */
function summarize(body: Buffer): string {
  if (body.length === 0) return '<empty>';
  return body.length > 30 ? `${body.subarray(0, 30).toString('hex')} ...` : body.toString('hex');
}

/**
 * Writes an answer, given as JSON text or object with its kind and apiVersion, as a protobuf body.
 * Returns false, having written nothing, when the catalog has no protobuf form for its kind.
 */
export function sendProtobuf(res: ServerResponse, code: number, body: unknown, headers: Record<string, string> = {}): boolean {
  const obj = (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
  if (!typeNameOf(String(obj.apiVersion), String(obj.kind))) return false;
  const bytes = encodeObject(obj);
  res.writeHead(code, { 'Content-Type': PROTOBUF, 'Content-Length': bytes.length, ...headers });
  res.end(bytes);
  return true;
}

/** A watch event as the JSON stream writes it (`{"type":...,"object":...}` and a newline), as a protobuf frame. */
export function watchEventFrame(line: string): Buffer {
  const event = JSON.parse(line) as { type: string; object: Record<string, unknown> };
  return watchFrame(event.type, encodeObject(event.object));
}
