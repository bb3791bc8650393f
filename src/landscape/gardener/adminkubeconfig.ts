// The `shoots/adminkubeconfig` subresource: POST an AdminKubeconfigRequest, get a kubeconfig of the
// shoot's logical cluster whose token stops working (401) at `status.expirationTimestamp`.
import {
  ADMIN_KUBECONFIG_REQUEST_API_VERSION,
  ADMIN_KUBECONFIG_REQUEST_KIND,
  AUTHENTICATION_GROUP,
  type AdminKubeconfigRequest,
  DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS,
  GARDENER_CORE_GROUP,
  Shoot,
  type ShootObject,
  validateAdminKubeconfigRequest,
} from '../../api/gardener/index.js';
import { type FieldError, goValue, invalid, notFound, type StatusError } from '../../apiserver/errors.js';
import type { SubresourceHandler } from '../../apiserver/handler.js';
import { nowRfc3339 } from '../../apiserver/objects.js';
import type { RunningApiServer } from '../../apiserver/server.js';
import { GARDEN_CLUSTER, type GardenerSimulatorOptions, shootClusterName } from './options.js';

function answer(err: StatusError): { code: number; body: unknown } {
  return { code: err.code, body: err.toStatus() };
}

export function adminKubeconfigHandler(server: RunningApiServer, opts: Pick<GardenerSimulatorOptions, 'maxAdminKubeconfigSeconds'>): SubresourceHandler {
  return {
    methods: ['POST'],
    async handle({ cluster, namespace, name, body }) {
      const shootsRef = { group: GARDENER_CORE_GROUP, resource: Shoot.plural };
      if (cluster.name !== GARDEN_CLUSTER) return answer(notFound(shootsRef, name));
      const request = (body ?? {}) as AdminKubeconfigRequest;
      const problems = validateAdminKubeconfigRequest(request);
      if (problems.length > 0) {
        const errors: FieldError[] = problems.map((p) => ({ type: 'FieldValueInvalid', field: p.field, message: `Invalid value: ${goValue(request.spec?.expirationSeconds)}: ${p.message}` }));
        return answer(invalid(ADMIN_KUBECONFIG_REQUEST_KIND, AUTHENTICATION_GROUP, name, errors));
      }
      const shootType = cluster.resolve(GARDENER_CORE_GROUP, Shoot.version, Shoot.plural);
      const shoot = shootType ? (cluster.tryGet(shootType, namespace, name) as ShootObject | undefined) : undefined;
      if (!shoot) return answer(notFound(shootsRef, name));
      const clusterName = shootClusterName(namespace, name);
      if ((shoot.status?.advertisedAddresses ?? []).length === 0 || !server.hasCluster(clusterName)) {
        // Gardener's answer for a Shoot whose API server is not up yet.
        return answer(
          invalid(ADMIN_KUBECONFIG_REQUEST_KIND, AUTHENTICATION_GROUP, name, [
            { type: 'FieldValueInvalid', field: 'status.status', message: 'Invalid value: null: no kube-apiserver advertised addresses in Shoot .status.advertisedAddresses' },
          ]),
        );
      }
      const asked = request.spec?.expirationSeconds ?? DEFAULT_ADMIN_KUBECONFIG_EXPIRATION_SECONDS;
      const granted = Math.min(asked, opts.maxAdminKubeconfigSeconds);
      const { token, expirationTimestamp } = server.issueToken(clusterName, granted);
      const kubeconfig = server.kubeconfigWithToken(clusterName, token);
      const response: AdminKubeconfigRequest = {
        apiVersion: ADMIN_KUBECONFIG_REQUEST_API_VERSION,
        kind: ADMIN_KUBECONFIG_REQUEST_KIND,
        metadata: { name, namespace, creationTimestamp: nowRfc3339() },
        spec: { expirationSeconds: granted },
        status: { kubeconfig: Buffer.from(kubeconfig).toString('base64'), expirationTimestamp },
      };
      return { code: 201, body: response };
    },
  };
}
