// What the landscape's main thread and its skr-webhook thread (skr-webhooks-worker.ts) tell each other.
import type { LogFields, LogLevel } from '../runtime/log.js';
import type { WebhookMetrics } from '../watcher/webhook-server.js';

/** What a runtime's skr-webhook pod has: from its Deployment and its Secret `skr-webhook-tls`. */
export interface RuntimeWebhookState {
  cluster: string;
  /** The SNI name the API server uses to reach this runtime's webhook. */
  sni: string;
  /** Resource versions of the Secret and the Deployment it was read from. */
  version: string;
  certPem: string;
  keyPem: string;
  caPem: string;
  kcpAddress: string;
  ignoredFieldManagers: string | undefined;
  ignoredFieldManagersFor: string | undefined;
}

export type WebhookCounter = 'requests' | 'events' | 'kcpRequests' | 'failedKcp';
export type MetricIncrement = [counter: WebhookCounter, labels: Record<string, string>, by: number];

export type ToWebhookThread = { t: 'state'; state: RuntimeWebhookState } | { t: 'drop'; cluster: string } | { t: 'stop' };

export type FromWebhookThread =
  | { t: 'listening'; port: number }
  /** The state's key pair could not be used: this runtime has no webhook until its Secret or Deployment changes. */
  | { t: 'unusable'; cluster: string; version: string }
  | { t: 'metrics'; increments: MetricIncrement[] }
  | { t: 'log'; level: LogLevel; msg: string; fields: LogFields | undefined };

/** Adds increments counted in the thread to the main thread's counters. */
export function addIncrements(metrics: WebhookMetrics, increments: MetricIncrement[]): void {
  for (const [counter, labels, by] of increments) metrics[counter].inc(labels, by);
}
