// Names of the Watcher component (KCP side): the default Watchers, the managers that receive their
// events, the listener Service they point at, and the Istio kinds the controller manages.
import { Labels, LabelValues, OPERATOR_NAME } from '../api/operator/index.js';
import type { KindRef } from '../kube/object.js';

/** Name of the Watcher controller (logs, metrics, events). */
export const WATCHER_CONTROLLER_NAME = 'watcher';
/** Field manager of everything the Watcher component writes. */
export const WATCHER_FIELD_MANAGER = OPERATOR_NAME;

/** Upstream's default Watcher: runtime Kymas changed. */
export const DEFAULT_WATCHER_NAME = 'klm-watcher';
/** The project's own default Watcher: resources a module installed changed (drift repair without polling). */
export const MODULE_RESOURCES_WATCHER_NAME = 'klm-module-resources';
/** The project's own default Watcher: the status of resources a module installed changed (readiness without polling). */
export const MODULE_STATUS_WATCHER_NAME = 'klm-module-status';
/** Manager (`spec.manager`) of klm-watcher: its events go to the Kyma controller. */
export const LIFECYCLE_MANAGER_EVENTS = 'lifecycle-manager';
/** Manager of klm-module-resources: its events go to the Manifest controller, which reads the objects back. */
export const MODULE_RESOURCE_EVENTS = 'lifecycle-manager-resources';
/**
 * Manager of klm-module-status: its events go to the Manifest controller, which reads readiness and the object named.
 * (Before, klm-module-status had MODULE_RESOURCE_EVENTS; ensureDefaultWatchers moves it over.)
 */
export const MODULE_STATUS_EVENTS = 'lifecycle-manager-module-status';

/** The KCP listener Service the default Watchers point at (upstream `klm-controller-manager-events`, port 8082). */
export const DEFAULT_LISTENER = { serviceName: 'klm-controller-manager-events', serviceNamespace: 'kcp-system', port: 8082 } as const;

/** Success requeue of a Watcher (upstream's watcher-requeue-success-interval, 1 minute). */
export const DEFAULT_REQUEUE_READY_MS = 60_000;
/** Retry of a Watcher in Error for a reason outside its spec (no Gateway, no Istio, an API error). */
export const DEFAULT_REQUEUE_ERROR_MS = 10_000;

/** The default gateway selector (upstream's DefaultIstioGatewaySelector). */
export function defaultGatewaySelector(): { matchLabels: Record<string, string> } {
  return { matchLabels: { [Labels.WatcherGateway]: LabelValues.DefaultGateway } };
}

export const ISTIO_GROUP = 'networking.istio.io';
/** Version upstream writes VirtualServices in; used when the CRD serves it. */
export const ISTIO_PREFERRED_VERSION = 'v1beta1';
export const VIRTUAL_SERVICE_CRD = `virtualservices.${ISTIO_GROUP}`;
export const GATEWAY_CRD = `gateways.${ISTIO_GROUP}`;
export const CRD_KIND: KindRef = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

/** What upstream writes on the VirtualService condition. */
export const WatcherConditionMessages = {
  Configured: 'VirtualService is configured',
  NotConfigured: 'VirtualService is not configured',
} as const;

/** The runtime side: the webhook that reports changes (in every runtime's kyma-system). */
export const SKR_WEBHOOK_NAME = 'skr-webhook';
export const SKR_WEBHOOK_NAMESPACE = 'kyma-system';
export const SKR_WEBHOOK_PORT = 443;
export const SKR_WEBHOOK_TIMEOUT_SECONDS = 15;
