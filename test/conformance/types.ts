// Shapes of the conformance corpus (test/fixtures/kube-conformance/README.md): scenarios going in,
// transcripts coming out.
import type { JsonObject, JsonValue } from '../../src/kube/json.js';

export type { JsonObject, JsonValue };

export interface RequestStep {
  id: string;
  method?: string;
  path: string;
  body?: JsonValue;
  contentType?: string;
  accept?: string;
  select?: string;
  omitBody?: boolean;
  retry?: { untilStatus: number; untilAbsent?: string; timeoutMs: number };
  record?: boolean;
}

export interface WatchStep {
  id: string;
  watch: string;
}

export interface CollectStep {
  id: string;
  collect: string;
  count: number;
  timeoutMs: number;
  close?: boolean;
  select?: string;
  unordered?: boolean;
}

export interface WebhookStep {
  id: string;
  webhook: { respond: JsonObject };
}

export interface WebhookRespondStep {
  webhookRespond: string;
  respond: JsonObject;
}

export interface WebhookStopStep {
  webhookStop: string;
}

export interface ReviewsStep {
  id: string;
  reviews: string;
  count: number;
  timeoutMs?: number;
  select?: string;
}

export interface SleepStep {
  sleepMs: number;
}

export type ScenarioStep =
  | RequestStep
  | WatchStep
  | CollectStep
  | WebhookStep
  | WebhookRespondStep
  | WebhookStopStep
  | ReviewsStep
  | SleepStep;

export interface Scenario {
  name: string;
  description?: string;
  namespace?: boolean;
  steps: ScenarioStep[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  contentType?: string;
  accept?: string;
  body?: JsonValue;
}

export interface RecordedResponse {
  status: number;
  /** Absent when `select` found nothing. */
  body?: JsonValue;
}

export interface WatchEvent {
  type: string;
  object?: JsonValue;
}

export interface RecordedReview {
  path: string;
  review?: JsonValue;
}

export interface RequestRecord {
  id: string;
  request: RecordedRequest;
  response: RecordedResponse;
}

export interface WatchRecord {
  id: string;
  watch: string;
  status: number;
}

export interface CollectRecord {
  id: string;
  collect: string;
  events: WatchEvent[];
}

export interface ReviewsRecord {
  id: string;
  reviews: RecordedReview[];
}

export type TranscriptStep = RequestRecord | WatchRecord | CollectRecord | ReviewsRecord;

export interface Transcript {
  name: string;
  description?: string;
  steps: TranscriptStep[];
}

/** What replaying produced before normalization, plus the run's own values that normalization hides. */
export interface RawTranscript extends Transcript {
  namespace: string;
  webhooks: WebhookIdentity[];
  /** Collect steps recorded with `unordered`, to sort once normalized. */
  unorderedCollects: string[];
}

export interface WebhookIdentity {
  id: string;
  url: string;
  caBundle: string;
}

export function isRequestStep(step: ScenarioStep): step is RequestStep {
  return 'path' in step;
}
