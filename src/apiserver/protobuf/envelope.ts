// The wire frame around every Kubernetes protobuf body: the 4 bytes "k8s\0", then a runtime.Unknown
// whose typeMeta names the object's apiVersion and kind and whose raw holds the object's message.
import { PACKAGE_ALIASES } from '../types/index.js';
import { messageType } from './messages.js';

export const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

const UNKNOWN = `${PACKAGE_ALIASES.runtime}.Unknown`;

export interface Envelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
}

export function hasMagic(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === MAGIC[0] && bytes[1] === MAGIC[1] && bytes[2] === MAGIC[2] && bytes[3] === MAGIC[3];
}

/** The magic and the envelope around a message; contentEncoding and contentType stay empty, as Go writes them. */
export function wrap(apiVersion: string, kind: string, raw: Uint8Array): Buffer {
  const unknown = messageType(UNKNOWN).encode({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' }).finish();
  return Buffer.concat([MAGIC, unknown]);
}

/** The envelope of a protobuf body; throws with kube's message when the magic is missing. */
export function unwrap(bytes: Uint8Array): Envelope {
  if (bytes.length === 0) throw new Error('empty data');
  if (!hasMagic(bytes)) throw new Error(`provided data does not appear to be a protobuf message, expected prefix [${[...MAGIC].join(' ')}]`);
  if (bytes.length === MAGIC.length) throw new Error('empty body');
  const m = messageType(UNKNOWN).decode(bytes.subarray(4)) as unknown as { typeMeta: { apiVersion?: string; kind?: string } | null; raw?: Uint8Array; contentEncoding?: string; contentType?: string };
  if (m.contentEncoding) throw new Error(`protobuf envelope with content encoding ${JSON.stringify(m.contentEncoding)} is not supported`);
  return { apiVersion: m.typeMeta?.apiVersion ?? '', kind: m.typeMeta?.kind ?? '', raw: m.raw ?? new Uint8Array(0) };
}

/**
 * One event of a protobuf watch stream: a 4-byte big-endian length, then a meta/v1 WatchEvent message
 * without magic or envelope (the stream serializer is the raw one), whose object.raw is the
 * object's own full protobuf body.
 */
export function watchFrame(type: string, objectBody: Uint8Array): Buffer {
  const event = messageType(`${PACKAGE_ALIASES.meta}.WatchEvent`).encode({ type, object: { raw: objectBody } }).finish();
  const frame = Buffer.allocUnsafe(4 + event.length);
  frame.writeUInt32BE(event.length, 0);
  frame.set(event, 4);
  return frame;
}
