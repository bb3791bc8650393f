// Scenario harness of the Runtime controller tests: a fresh embedded landscape (KCP, garden with the
// Gardener simulator) and the control plane's composition root running only the infrastructure
// manager against it, with short requeue times.
import type { ShootObject } from '../../src/api/gardener/index.js';
import { Shoot } from '../../src/api/gardener/index.js';
import { GardenerCluster, Runtime, type RuntimeObject } from '../../src/api/infrastructuremanager/index.js';
import { Kyma, type KymaObject, LabelValues, Labels } from '../../src/api/operator/index.js';
import type { ConverterConfig } from '../../src/infrastructure/converter/index.js';
import { readConverterConfig } from '../../src/up/index.js';
import { type ControlPlane, type ControlPlaneConfig, defaultControlPlaneConfig, startControlPlane } from '../../src/controlplane/index.js';
import { isConflict, isNotFound } from '../../src/runtime/client/errors.js';
import type { Client } from '../../src/runtime/client/interface.js';
import { createLogger, silentLogger, type Logger } from '../../src/runtime/log.js';
import { Registry } from '../../src/runtime/metrics.js';
import { type Landscape, type LandscapeOptions, startLandscape, waitFor } from '../support/landscape.js';

export { waitFor };

export const NAMESPACE = 'kcp-system';
export const fastTiming = {
  gardenerRequeueMs: 300,
  shootCreateRequeueMs: 300,
  shootReconcileRequeueMs: 300,
  shootDeleteRequeueMs: 300,
  controlPlaneRequeueMs: 200,
  statusRequeueMs: 20,
};

export function converterConfig(): ConverterConfig {
  return readConverterConfig();
}

export interface Harness {
  land: Landscape;
  registry: Registry;
  /** The control plane (by default the infrastructure manager only). */
  im: ControlPlane;
  /** The converter configuration and control plane settings the next (re)start uses. */
  converterConfig: ConverterConfig;
  controlPlane: Partial<ControlPlaneConfig>;
  /** Stops the infrastructure manager and starts a new one (a controller restart). */
  restart(): Promise<void>;
  /** Stops the infrastructure manager only. */
  stopManager(): Promise<void>;
  startManager(): Promise<void>;
  runtime(name: string): Promise<RuntimeObject | undefined>;
  /** Changes the Runtime as a person with kubectl edit would (read, change, update; again on a conflict). */
  edit(name: string, change: (rt: RuntimeObject) => void): Promise<RuntimeObject>;
  shoot(name: string): Promise<ShootObject | undefined>;
  stop(): Promise<void>;
}

/**
 * `controlPlane` overrides the control plane's settings (e.g. `lifecycleManager: true` to run both
 * managers); `logger`: where the controllers log (default: nowhere, or stderr with TEST_LOG set).
 */
export async function startHarness(
  opts: LandscapeOptions & {
    logger?: Logger;
    converterConfig?: ConverterConfig;
    /** Stands between the control plane and the KCP or garden API (e.g. to count its requests). */
    wrapClient?: (client: Client, cluster: 'kcp' | 'garden') => Client;
  } = {},
  controlPlane: Partial<ControlPlaneConfig> = {},
): Promise<Harness> {
  const { logger: imLogger, converterConfig: config = converterConfig(), wrapClient = (c: Client) => c, ...landscapeOptions } = opts;
  const land = await startLandscape(landscapeOptions);
  const registry = new Registry();
  const logger = imLogger ?? (process.env.TEST_LOG ? createLogger({ name: 'im', level: 'debug' }) : silentLogger);
  const start = async (): Promise<ControlPlane> => {
    const im = await startControlPlane({
      config: {
        ...defaultControlPlaneConfig(),
        lifecycleManager: false,
        gardenerRequeueMs: fastTiming.gardenerRequeueMs,
        controlPlaneRequeueMs: fastTiming.controlPlaneRequeueMs,
        runtimeTiming: fastTiming,
        runtimeWorkers: 4,
        gardenerClusterWorkers: 4,
        kubeconfigExpirationSeconds: 600,
        missingShootRetryMs: 200,
        gracefulShutdownTimeoutMs: 2_000,
        ...h.controlPlane,
      },
      kcp: wrapClient(land.kcp, 'kcp'),
      garden: wrapClient(land.garden, 'garden'),
      gardenerProject: land.project,
      converterConfig: h.converterConfig,
      registry,
      logger,
    });
    await im.ready();
    return im;
  };
  const h: Harness = {
    land,
    registry,
    im: undefined as unknown as ControlPlane,
    converterConfig: config,
    controlPlane,
    async restart() {
      await h.stopManager();
      await h.startManager();
    },
    async stopManager() {
      await h.im.stop();
    },
    async startManager() {
      h.im = await start();
    },
    async runtime(name) {
      try {
        return await land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name });
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    async edit(name, change) {
      for (;;) {
        const rt = await land.kcp.get<RuntimeObject>(Runtime, { namespace: NAMESPACE, name });
        change(rt);
        try {
          return await land.kcp.update(rt);
        } catch (e) {
          if (!isConflict(e)) throw e;
        }
      }
    },
    async shoot(name) {
      try {
        return await land.garden.get<ShootObject>(Shoot, { namespace: land.projectNamespace, name });
      } catch (e) {
        if (isNotFound(e)) return undefined;
        throw e;
      }
    },
    async stop() {
      await h.im.stop();
      await land.stop();
    },
  };
  h.im = await start();
  return h;
}

/** A valid AWS Runtime as the broker creates it; `edit` adjusts it. */
export function testRuntime(id: string, edit?: (rt: RuntimeObject) => void): RuntimeObject {
  const shootName = `c-${id}`.slice(0, 21);
  const rt: RuntimeObject = {
    apiVersion: Runtime.apiVersion,
    kind: Runtime.kind,
    metadata: {
      name: id,
      namespace: NAMESPACE,
      labels: {
        'kyma-project.io/instance-id': `instance-${id}`,
        'kyma-project.io/runtime-id': id,
        'kyma-project.io/shoot-name': shootName,
        'kyma-project.io/region': 'eu-central-1',
        'kyma-project.io/platform-region': 'cf-eu10',
        'operator.kyma-project.io/kyma-name': id,
        'kyma-project.io/broker-plan-id': 'plan-aws',
        'kyma-project.io/broker-plan-name': 'aws',
        'kyma-project.io/global-account-id': 'ga-1',
        'kyma-project.io/subaccount-id': 'sa-1',
      },
    },
    spec: {
      shoot: {
        name: shootName,
        purpose: 'evaluation',
        platformRegion: 'cf-eu10',
        region: 'eu-central-1',
        secretBindingName: 'sb-aws',
        provider: {
          type: 'aws',
          workers: [{ name: 'cpu-worker-0', machine: { type: 'm6i.large' }, minimum: 1, maximum: 3, maxSurge: 1, maxUnavailable: 0, zones: ['eu-central-1a', 'eu-central-1b'] }],
        },
        networking: { type: 'calico', pods: '100.64.0.0/12', nodes: '10.250.0.0/16', services: '100.104.0.0/13' },
      },
      security: { administrators: ['admin@example.com'], networking: { filter: { egress: { enabled: false } } } },
    },
  };
  edit?.(rt);
  return rt;
}

/** The Kyma of `testRuntime(name)` as the broker creates it: the Runtime's labels, no modules. */
export function testKyma(name: string): KymaObject {
  const labels = testRuntime(name).metadata.labels ?? {};
  return {
    apiVersion: Kyma.apiVersion,
    kind: Kyma.kind,
    metadata: { name, namespace: NAMESPACE, labels: { ...labels, [Labels.ManagedBy]: LabelValues.LifecycleManager } },
    spec: { channel: 'regular', modules: [] },
  };
}

export function condition(rt: RuntimeObject | undefined, type: string): { status: string; reason: string; message: string } | undefined {
  return rt?.status?.conditions?.find((c) => c.type === type);
}

/** Waits for the Runtime to reach `state` (and optionally a predicate) and returns it. */
export function waitForRuntime(h: Harness, name: string, state: string, extra: (rt: RuntimeObject) => boolean = () => true, timeoutMs = 20_000): Promise<RuntimeObject> {
  return waitFor(
    `runtime ${name} in state ${state}`,
    async () => {
      const rt = await h.runtime(name);
      return rt && rt.status?.state === state && extra(rt) ? rt : undefined;
    },
    timeoutMs,
  );
}

export async function gardenerClusterExists(h: Harness, name: string): Promise<boolean> {
  try {
    await h.land.kcp.get(GardenerCluster, { namespace: NAMESPACE, name });
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}
