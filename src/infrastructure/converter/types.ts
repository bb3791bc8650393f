// Shapes the extenders share: the Shoot's spec parts and what every extender gets to read.
import type { ShootObject } from '../../api/gardener/index.js';
import type { RuntimeObject } from '../../api/infrastructuremanager/index.js';
import type { ConverterConfig } from './config.js';

export type ShootSpec = ShootObject['spec'];
export type ShootProvider = ShootSpec['provider'];
export type ShootWorker = NonNullable<ShootProvider['workers']>[number];
export type ShootExtension = NonNullable<ShootSpec['extensions']>[number];
export type RuntimeShootSpec = RuntimeObject['spec']['shoot'];
export type RawConfig = Record<string, unknown>;

/** What an extender reads: the Runtime, the configuration and, when patching, the Shoot as it is now. */
export interface ConversionInput {
  runtime: RuntimeObject;
  config: ConverterConfig;
  /** The Shoot as Gardener has it now; unset when creating. */
  existing?: ShootObject;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy of JSON data (Runtime parts must never be shared with the Shoot we hand out). */
export function cloneJson<T>(v: T): T {
  return structuredClone(v);
}
