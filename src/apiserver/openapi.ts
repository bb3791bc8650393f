// A minimal OpenAPI v2 document. kubectl downloads /openapi/v2 (as protobuf) before `apply` to
// validate objects client-side; kinds the document does not describe are not validated by
// kubectl, and the server validates everything itself. So an empty document serves kubectl's
// needs without describing every schema (a documented deviation: `kubectl explain` has nothing to show).

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

function field(no: number, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(no << 3) | 2, ...varint(bytes.length)]), bytes]);
}

const str = (s: string) => Buffer.from(s, 'utf8');

/** gnostic openapi_v2.Document { swagger = 1; info = 2 { title = 1; version = 2 }; paths = 8; definitions = 9 } */
export const OPENAPI_V2_PROTOBUF: Buffer = Buffer.concat([
  field(1, str('2.0')),
  field(2, Buffer.concat([field(1, str('Kubernetes')), field(2, str('v1.24.0'))])),
  field(8, Buffer.alloc(0)),
  field(9, Buffer.alloc(0)),
]);

export const OPENAPI_V2_JSON = { swagger: '2.0', info: { title: 'Kubernetes', version: 'v1.24.0' }, paths: {}, definitions: {} };
