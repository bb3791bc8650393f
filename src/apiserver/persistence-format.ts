// The files of the durable store (persistence.ts) line by line: what a record is, how a line
// carries its checksum, the header that says which format a file has, and a reader that goes
// through a file of any size in fixed chunks.
//
// Format 3 (this one): every line is `<checksum> <json>\n`, the checksum being the first 16 hex
// digits of the SHA-256 of the JSON's UTF-8 bytes; the first line of each file is a header record
// (`{"format":"kcp-store","version":3,...}`). A stored object is the last member of its record, `o`,
// as its own JSON text: written without escaping it into a string, and read back by slicing it out
// of the line (the checksum vouches for it) instead of parsing it. Format 2 kept the object as a
// JSON string in `j` (escaped: about a tenth longer, and that much more to hash and write); format 1
// (before checksums) has JSON lines only and no header. Both are read as they are and rewritten in
// format 3 at the next snapshot.
import { hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

export const STORE_FORMAT = 'kcp-store';
export const STORE_VERSION = 3;

export type StoreRecord =
  | { op: 'put'; c: string; r: string; ns: string; n: string; rv: number; j: string; l?: { [k: string]: string } }
  | { op: 'del'; c: string; r: string; ns: string; n: string; rv: number }
  | { op: 'cluster'; c: string; rv: number }
  | { op: 'drop'; c: string };

/** First line of a format-2 file. A snapshot holds everything up to the segment it names; replay goes on from there. */
export type FileHeader =
  | { format: typeof STORE_FORMAT; version: number; kind: 'snapshot'; firstSegment: number }
  | { format: typeof STORE_FORMAT; version: number; kind: 'segment'; segment: number };

const SUM_HEX = 16;

function checksum(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex').slice(0, SUM_HEX);
}

/** Where a format-3 put record's object begins: after this, the record's last member. */
const OBJECT_MEMBER = ',"o":';
/** A format-2 put record's object, a JSON string: such a line is parsed whole. */
const FORMAT_2_OBJECT = ',"j":';

/** A record's or header's JSON as format 3 writes it (a put's object as its own text, last). */
export function encodeRecord(value: StoreRecord | FileHeader): string {
  if ('op' in value && value.op === 'put' && typeof value.j === 'string') {
    const { j, ...head } = value;
    return `${JSON.stringify(head).slice(0, -1)}${OBJECT_MEMBER}${j}}`;
  }
  return JSON.stringify(value);
}

/** One line of a format-3 file, newline included. */
export function encodeLine(value: StoreRecord | FileHeader): string {
  const json = encodeRecord(value);
  return `${checksum(json)} ${json}\n`;
}

/**
 * A format-3 put record: its head parsed (a short, flat object) and its object taken as the text
 * between `,"o":` at the top level and the closing brace; undefined when the line is not one.
 */
function decodePut(text: string): StoreRecord | undefined {
  if (!text.startsWith('{"op":"put",') || !text.endsWith('}')) return undefined;
  // The head's strings are JSON-escaped, so a quote inside one follows a backslash: the member
  // separator is found outside strings and nested maps (the labels) by tracking both.
  let inString = false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c /* backslash */) i++;
      else if (ch === 0x22 /* " */) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b /* { */) depth++;
    else if (ch === 0x7d /* } */) depth--;
    else if (ch === 0x2c /* , */ && depth === 1 && text.startsWith(FORMAT_2_OBJECT, i)) return undefined;
    else if (ch === 0x2c && depth === 1 && text.startsWith(OBJECT_MEMBER, i)) {
      let head: unknown;
      try {
        head = JSON.parse(`${text.slice(0, i)}}`);
      } catch {
        return undefined;
      }
      return { ...(head as object), j: text.slice(i + OBJECT_MEMBER.length, -1) } as StoreRecord;
    }
  }
  return undefined;
}

export interface RawLine {
  /** The line's bytes without the newline; valid only until the reader is asked for the next line. */
  bytes: Buffer;
  /** Byte offset of the line's start in the file. */
  offset: number;
  /** 1-based line number. */
  line: number;
  /** False for a last line without a newline (a write that was cut off). */
  terminated: boolean;
}

/**
 * The lines of a file, read in chunks of `chunkBytes` (never the whole file at once): a store of
 * hundreds of megabytes costs one chunk plus the longest line.
 */
export function* readLines(path: string, chunkBytes = 1 << 20): Generator<RawLine> {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.allocUnsafe(chunkBytes);
    // The start of a line that continues into the next chunk (copied: the chunk is reused).
    let carry: Buffer[] = [];
    let lineStart = 0;
    let fileOffset = 0;
    let line = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunkBytes, null);
      if (n === 0) break;
      let pos = 0;
      for (;;) {
        const nl = chunk.indexOf(10, pos);
        if (nl < 0 || nl >= n) break;
        const piece = chunk.subarray(pos, nl);
        const bytes = carry.length > 0 ? Buffer.concat([...carry, piece]) : piece;
        carry = [];
        yield { bytes, offset: lineStart, line: ++line, terminated: true };
        pos = nl + 1;
        lineStart = fileOffset + pos;
      }
      if (pos < n) carry.push(Buffer.from(chunk.subarray(pos, n)));
      fileOffset += n;
    }
    if (carry.length > 0) yield { bytes: Buffer.concat(carry), offset: lineStart, line: ++line, terminated: false };
  } finally {
    closeSync(fd);
  }
}

export type Decoded = { value: StoreRecord | FileHeader } | { damage: string; readable?: Partial<Record<'op' | 'c' | 'r' | 'ns' | 'n', string>> };

/** A line of a file in `version` (1: plain JSON; 2 and 3: checksum and JSON): its record or header, or why it cannot be used. */
export function decodeLine(bytes: Buffer, version: number): Decoded {
  let body = bytes;
  if (version >= 2) {
    if (bytes.length < SUM_HEX + 2 || bytes[SUM_HEX] !== 0x20) return { damage: 'no checksum', readable: readableParts(bytes.toString('utf8')) };
    body = bytes.subarray(SUM_HEX + 1);
    if (checksum(body) !== bytes.toString('latin1', 0, SUM_HEX)) return { damage: 'checksum mismatch', readable: readableParts(body.toString('utf8')) };
  }
  const text = body.toString('utf8');
  // Only a checksummed line's object is taken unparsed: without one, nothing vouches for it.
  const put = version >= 2 ? decodePut(text) : undefined;
  if (put) return isRecord(put) ? { value: put } : { damage: 'not a store record', readable: readableParts(text) };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { damage: 'not JSON', readable: readableParts(text) };
  }
  if (isHeader(value) || isRecord(value)) return { value };
  return { damage: 'not a store record', readable: readableParts(text) };
}

export function isHeader(v: unknown): v is FileHeader {
  return typeof v === 'object' && v !== null && (v as { format?: unknown }).format === STORE_FORMAT && typeof (v as { version?: unknown }).version === 'number';
}

function isRecord(v: unknown): v is StoreRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as { [k: string]: unknown };
  const str = (k: string) => typeof r[k] === 'string';
  const key = str('c') && str('r') && str('ns') && str('n') && typeof r.rv === 'number';
  switch (r.op) {
    case 'put':
      return key && str('j') && (r.l === undefined || (typeof r.l === 'object' && r.l !== null));
    case 'del':
      return key;
    case 'cluster':
      return str('c') && typeof r.rv === 'number';
    case 'drop':
      return str('c');
    default:
      return false;
  }
}

/** What a damaged line still tells about the record it held (operation, cluster, resource, namespace, name). */
function readableParts(text: string): Partial<Record<'op' | 'c' | 'r' | 'ns' | 'n', string>> | undefined {
  const out: Partial<Record<'op' | 'c' | 'r' | 'ns' | 'n', string>> = {};
  for (const k of ['op', 'c', 'r', 'ns', 'n'] as const) {
    const m = new RegExp(`"${k}":"((?:[^"\\\\]|\\\\.)*)"`).exec(text);
    if (m) out[k] = m[1];
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
