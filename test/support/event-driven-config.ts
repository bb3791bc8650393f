// The control-plane settings of the scenarios that measure what events alone do: the lifecycle
// manager without the infrastructure manager, Ready Kymas and Manifests looked at again only after
// an hour (so within a test only watcher events and watches can move them), short busy and error
// requeues, and the runtime watcher's listener on loopback mutual TLS.
import { type ControlPlaneConfig, defaultControlPlaneConfig } from '../../src/controlplane/index.js';
import type { WatcherConfig } from '../../src/controlplane/watcher.js';
import { DEFAULT_SKR_WEBHOOK_IMAGE } from '../../src/watcher/skr-objects.js';

export const HOUR = 3_600_000;

/** `overrides` replace single settings; `watcher` is merged into the watcher's. */
export function eventDrivenConfig(overrides: Partial<ControlPlaneConfig> = {}, watcher: Partial<WatcherConfig> = {}): ControlPlaneConfig {
  return {
    ...defaultControlPlaneConfig(),
    infrastructureManager: false,
    kymaIntervals: { readyMs: HOUR, busyMs: 200, warningMs: HOUR, errorMs: 300 },
    manifestIntervals: { successMs: HOUR, busyMs: 150, errorMs: 300, warningMs: HOUR },
    remoteRequestTimeoutMs: 3_000,
    ...overrides,
    watcher: { listen: { host: '127.0.0.1', port: 0 }, trustGateway: false, image: DEFAULT_SKR_WEBHOOK_IMAGE, pki: {}, ...watcher },
  };
}
