// Normalization of transcripts (README "Normalization"): hides what differs from run to run
// (times, uids, resourceVersions, namespace and webhook addresses) and nothing else.
import { isPlainObject } from '../../src/kube/json.js';
import type {
  JsonValue,
  RawTranscript,
  Transcript,
  TranscriptStep,
  WatchEvent,
  WebhookIdentity,
} from './types.js';

const DROPPED_KEYS = new Set(['selfLink', 'storageVersionHash']);
const TIME_KEYS = new Set([
  'creationTimestamp',
  'deletionTimestamp',
  'time',
  'lastTransitionTime',
  'lastUpdateTime',
  'renewTime',
  'acquireTime',
  'eventTime',
  'firstTimestamp',
  'lastTimestamp',
]);
const AGE = /^(?:\d+y)?(?:\d+d)?(?:\d+h)?(?:\d+m)?(?:\d+s)?$/;
const RV_IN_QUERY = /resourceVersion=(\d+)/g;
const NUMBER_TOKEN = /(?<![\w#])\d+(?!\w)/g;

/** Symbols of one scenario. uids and resourceVersions are numbered separately, in order of first sight. */
export class SymbolTable {
  readonly uids = new Map<string, string>();
  readonly resourceVersions = new Map<string, string>();

  uid(value: string): string {
    return symbolFor(this.uids, value, 'uid');
  }

  resourceVersion(value: string): string {
    return symbolFor(this.resourceVersions, value, 'rv');
  }
}

function symbolFor(table: Map<string, string>, value: string, prefix: string): string {
  let symbol = table.get(value);
  if (symbol === undefined) {
    symbol = `${prefix}#${table.size + 1}`;
    table.set(value, symbol);
  }
  return symbol;
}

export interface NormalizeContext {
  namespace: string;
  webhooks?: WebhookIdentity[];
}

export class Normalizer {
  constructor(
    private readonly ctx: NormalizeContext,
    readonly symbols: SymbolTable = new SymbolTable(),
  ) {}

  value(value: JsonValue): JsonValue {
    if (typeof value === 'string') return this.text(value, false);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (isPlainObject(value)) return this.object(value as { [key: string]: JsonValue });
    return value;
  }

  private object(obj: { [key: string]: JsonValue }): JsonValue {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, value] of Object.entries(obj)) {
      if (DROPPED_KEYS.has(key)) continue;
      out[this.key(key)] = this.field(key, value, obj);
    }
    return out;
  }

  private field(key: string, value: JsonValue, siblings: { [key: string]: JsonValue }): JsonValue {
    if (typeof value === 'string') {
      if (TIME_KEYS.has(key)) return '<time>';
      if (key === 'uid' && value !== '') return this.symbols.uid(value);
      if (key === 'resourceVersion' && value !== '' && value !== '0') return this.symbols.resourceVersion(value);
      if (key === 'continue' && value !== '') return '<continue>';
      if (key === 'name' && isGeneratedName(value, siblings.generateName)) {
        return `${this.text(siblings.generateName as string, false)}<generated>`;
      }
      return this.text(value, key === 'message');
    }
    if (Array.isArray(value)) {
      if (key === 'managedFields') return this.value(sortManagedFields(value));
      if (key === 'cells') return value.map((cell) => (isAge(cell) ? '<age>' : this.value(cell)));
    }
    return this.value(value);
  }

  /** Object keys: fieldsV1 keys such as `k:{"uid":"..."}` name uids; the namespace may appear too. */
  private key(key: string): string {
    return this.replaceKnownUids(replaceAll(key, this.ctx.namespace, '{{ns}}'));
  }

  text(text: string, isMessage: boolean): string {
    let out = text;
    for (const hook of this.ctx.webhooks ?? []) {
      out = replaceAll(out, hook.caBundle, `{{${hook.id}.caBundle}}`);
      out = replaceAll(out, hook.url, `{{${hook.id}.url}}`);
    }
    out = replaceAll(out, this.ctx.namespace, '{{ns}}');
    out = this.replaceKnownUids(out);
    out = out.replace(RV_IN_QUERY, (_m, rv: string) =>
      rv === '0' ? 'resourceVersion=0' : `resourceVersion=${this.symbols.resourceVersion(rv)}`,
    );
    if (isMessage) {
      out = out.replace(NUMBER_TOKEN, (digits) => this.symbols.resourceVersions.get(digits) ?? digits);
    }
    return out;
  }

  private replaceKnownUids(text: string): string {
    let out = text;
    for (const [uid, symbol] of this.symbols.uids) out = replaceAll(out, uid, symbol);
    return out;
  }
}

function replaceAll(text: string, search: string, replacement: string): string {
  return search !== '' && text.includes(search) ? text.split(search).join(replacement) : text;
}

function isGeneratedName(name: string, generateName: JsonValue | undefined): boolean {
  return typeof generateName === 'string' && generateName !== '' && name.startsWith(generateName);
}

export function isAge(cell: JsonValue): boolean {
  return typeof cell === 'string' && ((cell !== '' && AGE.test(cell)) || cell === '<invalid>');
}

function managedFieldsKey(entry: JsonValue): string {
  if (!isPlainObject(entry)) return '';
  const part = (k: string) => (typeof entry[k] === 'string' ? (entry[k] as string) : '');
  return `${part('manager')}|${part('operation')}|${part('subresource')}`;
}

function sortManagedFields(entries: JsonValue[]): JsonValue[] {
  return entries
    .map((entry) => ({ entry, key: managedFieldsKey(entry) }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ entry }) => entry);
}

/** A watch path as recorded: namespace hidden, the resourceVersion it starts from becomes `<rv>`. */
export function normalizeWatchPath(path: string, namespace: string): string {
  return replaceAll(path, namespace, '{{ns}}').replace(RV_IN_QUERY, 'resourceVersion=<rv>');
}

function sortByJsonText(events: WatchEvent[]): WatchEvent[] {
  return events
    .map((event) => ({ event, text: JSON.stringify(event) }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
    .map(({ event }) => event);
}

/** Normalizes a whole raw transcript, walking its steps in order with one symbol table. */
export function normalizeTranscript(raw: RawTranscript): Transcript {
  const ctx: NormalizeContext = { namespace: raw.namespace, webhooks: raw.webhooks };
  const normalizer = new Normalizer(ctx);
  const unordered = new Set(raw.unorderedCollects);
  const steps = raw.steps.map((step): TranscriptStep => {
    if ('request' in step) {
      // Requests are informational; each is normalized on its own so it never numbers symbols.
      const request = new Normalizer({ namespace: raw.namespace }).value(step.request as unknown as JsonValue);
      const response: { status: number; body?: JsonValue } = { status: step.response.status };
      if (step.response.body !== undefined) response.body = normalizer.value(step.response.body);
      return { id: step.id, request: request as unknown as typeof step.request, response };
    }
    if ('watch' in step) return { id: step.id, watch: normalizeWatchPath(step.watch, raw.namespace), status: step.status };
    if ('collect' in step) {
      const events = step.events.map((event) => normalizeEvent(normalizer, event));
      return { id: step.id, collect: step.collect, events: unordered.has(step.id) ? sortByJsonText(events) : events };
    }
    return {
      id: step.id,
      reviews: step.reviews.map((review) => {
        const out: { path: string; review?: JsonValue } = { path: normalizer.text(review.path, false) };
        if (review.review !== undefined) out.review = normalizer.value(review.review);
        return out;
      }),
    };
  });
  return raw.description === undefined ? { name: raw.name, steps } : { name: raw.name, description: raw.description, steps };
}

function normalizeEvent(normalizer: Normalizer, event: WatchEvent): WatchEvent {
  const out: WatchEvent = { type: event.type };
  if (event.object !== undefined) out.object = normalizer.value(event.object);
  return out;
}
