// HTTPS access to the server under test as the recorder did it: bearer token, no User-Agent.
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { JsonValue } from './types.js';

export interface Target {
  url: string;
  token: string;
  caPem: string;
}

export interface HttpResult {
  status: number;
  text: string;
}

export interface RequestOptions {
  body?: string;
  contentType?: string;
  accept?: string;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export class KubeClient {
  private readonly agent: https.Agent;
  private readonly base: URL;

  constructor(private readonly target: Target) {
    this.base = new URL(target.url);
    this.agent = new https.Agent({ ca: target.caPem, keepAlive: true });
  }

  private options(method: string, path: string, headers: Record<string, string>): https.RequestOptions {
    return {
      agent: this.agent,
      method,
      hostname: this.base.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: this.base.port || 443,
      path: `${this.base.pathname.replace(/\/$/, '')}${path}`,
      headers: { Authorization: `Bearer ${this.target.token}`, ...headers },
    };
  }

  request(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = {};
    if (opts.accept !== undefined) headers.Accept = opts.accept;
    if (opts.body !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(opts.body));
    }
    return new Promise((resolve, reject) => {
      const req = https.request(this.options(method, path, headers), (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      });
      req.setTimeout(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: timed out`)));
      req.on('error', reject);
      req.end(opts.body);
    });
  }

  /** Opens a streaming GET; resolves once the response headers arrived. */
  watch(path: string, timeoutMs = 10_000, accept?: string): Promise<WatchStream> {
    return new Promise((resolve, reject) => {
      const req = https.request(this.options('GET', path, accept === undefined ? {} : { Accept: accept }), (res) => resolve(new WatchStream(res, () => req.destroy())));
      const timer = setTimeout(() => req.destroy(new Error(`watch ${path}: no response headers`)), timeoutMs);
      req.on('response', () => clearTimeout(timer));
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Events of a watch, parsed as they arrive (JSON lines, or JSON documents back to back). */
export class WatchStream {
  readonly status: number;
  private readonly events: JsonValue[] = [];
  private readonly splitter = new JsonDocumentSplitter();
  private waiter: (() => void) | undefined;
  private finished = false;

  constructor(res: IncomingMessage, private readonly abort: () => void) {
    this.status = res.statusCode ?? 0;
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      for (const text of this.splitter.push(chunk)) this.events.push(parseOrText(text));
      this.wake();
    });
    const finish = () => {
      this.finished = true;
      this.wake();
    };
    res.on('end', finish);
    res.on('error', finish);
    res.on('close', finish);
  }

  /** Whether the stream has ended (the server closed it, or close() was called). */
  get ended(): boolean {
    return this.finished;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** The next `count` events, or fewer if the stream ends or `timeoutMs` passes first. */
  async take(count: number, timeoutMs: number): Promise<JsonValue[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length < count && !this.finished) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.events.splice(0, count);
  }

  close(): void {
    this.finished = true;
    this.abort();
  }
}

function parseOrText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** Splits a character stream into top-level JSON documents (objects or arrays). */
export class JsonDocumentSplitter {
  private buffer = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;
  private scanned = 0;

  push(chunk: string): string[] {
    this.buffer += chunk;
    const out: string[] = [];
    for (let i = this.scanned; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
        continue;
      }
      if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') {
        if (this.depth === 0) this.start = i;
        this.depth++;
      } else if ((c === '}' || c === ']') && this.depth > 0) {
        this.depth--;
        if (this.depth === 0) out.push(this.buffer.slice(this.start, i + 1));
      }
    }
    if (this.depth === 0) {
      this.buffer = '';
      this.scanned = 0;
    } else {
      this.buffer = this.buffer.slice(this.start);
      this.start = 0;
      this.scanned = this.buffer.length;
    }
    return out;
  }
}

export function parseBody(text: string): JsonValue {
  if (text === '') return '';
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
