// Replays one scenario against a server and records what it answered (README "Scenario format").
import { randomBytes } from 'node:crypto';
import { KubeClient, parseBody, type Target, type WatchStream } from './http.js';
import { normalizeTranscript } from './normalize.js';
import { selectPath } from './select.js';
import { renderBody, renderPath, type TemplateContext } from './template.js';
import { sleep } from '../../src/util/sleep.js';
import { AdmissionWebhook } from './webhook.js';
import { isRequestStep } from './types.js';
import type {
  CollectStep,
  JsonValue,
  RawTranscript,
  RecordedRequest,
  RecordedResponse,
  RequestStep,
  ReviewsStep,
  Scenario,
  ScenarioStep,
  Transcript,
  TranscriptStep,
  WatchEvent,
} from './types.js';

export type { Target };

const RETRY_INTERVAL_MS = 200;

/** A fresh namespace name: lowercase, so that it also works inside group names (`{{ns}}.example.com`). */
export function uniqueNamespace(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return `kc-${[...randomBytes(10)].map((b) => alphabet[b % alphabet.length]).join('')}`;
}

class ScenarioRun {
  readonly client: KubeClient;
  readonly ctx: TemplateContext;
  readonly watches = new Map<string, WatchStream>();
  readonly hooks = new Map<string, AdmissionWebhook>();
  readonly steps: TranscriptStep[] = [];
  readonly unorderedCollects: string[] = [];

  constructor(target: Target, namespace: string) {
    this.client = new KubeClient(target);
    this.ctx = { namespace, responses: new Map(), webhooks: this.hooks };
  }

  async run(step: ScenarioStep): Promise<void> {
    if (isRequestStep(step)) return this.request(step);
    if ('watch' in step) return this.openWatch(step.id, step.watch);
    if ('collect' in step) return this.collect(step);
    if ('webhook' in step) {
      this.hooks.set(step.id, await AdmissionWebhook.start(step.id, step.webhook.respond));
      return;
    }
    if ('webhookRespond' in step) return this.hook(step.webhookRespond).setRespond(step.respond);
    if ('webhookStop' in step) return this.hook(step.webhookStop).stop();
    if ('reviews' in step) return this.reviews(step);
    if ('sleepMs' in step) return sleep(step.sleepMs);
    throw new Error(`unknown step ${JSON.stringify(step)}`);
  }

  private hook(id: string): AdmissionWebhook {
    const hook = this.hooks.get(id);
    if (!hook) throw new Error(`no webhook "${id}"`);
    return hook;
  }

  private async request(step: RequestStep): Promise<void> {
    const method = step.method ?? 'GET';
    const recorded: RecordedRequest = { method, path: step.path };
    let response: { status: number; body: JsonValue };
    try {
      const path = renderPath(step.path, this.ctx);
      const body = step.body === undefined ? undefined : renderBody(step.body, this.ctx);
      Object.assign(recorded, requestRecord(method, path, step, body));
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      response = await this.send(method, path, step, text);
    } catch (err) {
      response = { status: 0, body: `<error: ${(err as Error).message}>` };
    }
    this.ctx.responses.set(step.id, response);
    if (step.record === false) return;
    this.steps.push({ id: step.id, request: recorded, response: recordedResponse(step, response) });
  }

  private async send(method: string, path: string, step: RequestStep, body: string | undefined): Promise<{ status: number; body: JsonValue }> {
    const deadline = Date.now() + (step.retry?.timeoutMs ?? 0);
    for (;;) {
      const result = await this.client.request(method, path, { body, contentType: step.contentType, accept: step.accept });
      const response = { status: result.status, body: parseBody(result.text) };
      if (!step.retry || retryDone(step.retry, response) || Date.now() + RETRY_INTERVAL_MS > deadline) return response;
      await sleep(RETRY_INTERVAL_MS);
    }
  }

  private async openWatch(id: string, template: string): Promise<void> {
    let path = template;
    let status = 0;
    try {
      path = renderPath(template, this.ctx);
      const stream = await this.client.watch(path);
      this.watches.set(id, stream);
      status = stream.status;
    } catch {
      // Recorded as status 0: the watch could not be opened.
    }
    this.steps.push({ id, watch: path, status });
  }

  private async collect(step: CollectStep): Promise<void> {
    const stream = this.watches.get(step.collect);
    const received = stream ? await stream.take(step.count, step.timeoutMs) : [];
    if (step.close) stream?.close();
    const events = received.map((event) => watchEvent(event, step.select));
    if (step.unordered) this.unorderedCollects.push(step.id);
    this.steps.push({ id: step.id, collect: step.collect, events });
  }

  private async reviews(step: ReviewsStep): Promise<void> {
    const reviews = await this.hook(step.reviews).takeReviews(step.count, step.timeoutMs ?? 3000);
    this.steps.push({
      id: step.id,
      reviews: reviews.map(({ path, review }) => {
        const selected = step.select && review !== undefined ? selectPath(review, step.select) : review;
        return selected === undefined ? { path } : { path, review: selected };
      }),
    });
  }

  async close(): Promise<void> {
    for (const stream of this.watches.values()) stream.close();
    await Promise.all([...this.hooks.values()].map((hook) => hook.stop()));
  }
}

function requestRecord(method: string, path: string, step: RequestStep, body: JsonValue | undefined): RecordedRequest {
  const recorded: RecordedRequest = { method, path };
  if (step.contentType !== undefined) recorded.contentType = step.contentType;
  if (step.accept !== undefined) recorded.accept = step.accept;
  if (body !== undefined) recorded.body = body;
  return recorded;
}

function retryDone(retry: NonNullable<RequestStep['retry']>, response: { status: number; body: JsonValue }): boolean {
  if (response.status !== retry.untilStatus) return false;
  return retry.untilAbsent === undefined || selectPath(response.body, retry.untilAbsent) === undefined;
}

function recordedResponse(step: RequestStep, response: { status: number; body: JsonValue }): RecordedResponse {
  if (step.omitBody) return { status: response.status, body: '<omitted>' };
  const body = step.select ? selectPath(response.body, step.select) : response.body;
  return body === undefined ? { status: response.status } : { status: response.status, body };
}

function watchEvent(event: JsonValue, select: string | undefined): WatchEvent {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return { type: '<unparsable>', object: event };
  const type = typeof event.type === 'string' ? event.type : String(event.type);
  const object = select ? selectPath(event.object, select) : event.object;
  return object === undefined ? { type } : { type, object };
}

/** Replays a scenario and returns the transcript before normalization, with what is needed to normalize it. */
export async function replayScenarioRaw(target: Target, scenario: Scenario): Promise<RawTranscript> {
  const namespace = uniqueNamespace();
  const run = new ScenarioRun(target, namespace);
  const ownsNamespace = scenario.namespace !== false;
  try {
    if (ownsNamespace) {
      const created = await run.client.request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
      });
      if (created.status !== 201) throw new Error(`creating namespace ${namespace}: HTTP ${created.status} ${created.text}`);
    }
    for (const step of scenario.steps) await run.run(step);
  } finally {
    await run.close();
    if (ownsNamespace) await run.client.request('DELETE', `/api/v1/namespaces/${namespace}`).catch(() => undefined);
    run.client.close();
  }
  return {
    name: scenario.name,
    description: scenario.description,
    steps: run.steps,
    namespace,
    webhooks: [...run.hooks.values()].map(({ id, url, caBundle }) => ({ id, url, caBundle })),
    unorderedCollects: run.unorderedCollects,
  };
}

/** Replays a scenario and returns its normalized transcript, comparable with the golden one. */
export async function replayScenario(target: Target, scenario: Scenario): Promise<Transcript> {
  return normalizeTranscript(await replayScenarioRaw(target, scenario));
}
