// The `serviceaccounts/<name>/token` subresource: POST an authentication.k8s.io/v1 TokenRequest,
// get a signed token for that ServiceAccount (what `kubectl create token` does). Defaults,
// validation and errors as kube-apiserver's TokenREST: audiences default to the API server's,
// expirationSeconds to 3600 (at least 600, at most 2^32), a bound Pod or Secret must exist (a
// Pod must run as that ServiceAccount) and the token dies with it.
import type { LogicalCluster } from '../cluster.js';
import { badRequest, conflict, fieldErrors, invalid, notFound, type FieldError } from '../errors.js';
import type { SubresourceHandler } from '../handler.js';
import { nowRfc3339 } from '../objects.js';
import { BUILTIN_TYPES } from '../resources.js';
import { isPlainObject } from '../../kube/json.js';
import { API_AUDIENCES, type BoundKind, ServiceAccountTokens } from './service-account-tokens.js';

const GROUP = 'authentication.k8s.io';
const KIND = 'TokenRequest';
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const core = (kind: string) => BUILTIN_TYPES.find((t) => t.group === '' && t.kind === kind)!;
const SERVICE_ACCOUNT = core('ServiceAccount');

type Obj = Record<string, unknown>;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** `group/version, Kind=kind`, as Go prints a GroupVersionKind. */
function gvkString(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  return `${group}/${version}, Kind=${kind}`;
}

/** The bound object: checked as kube does, its uid goes into the token. */
function boundObject(cluster: LogicalCluster, namespace: string, serviceAccount: string, ref: Obj): { kind: BoundKind; name: string; uid: string; echoed: Obj } {
  const kind = str(ref.kind);
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  if (group !== '' || (kind !== 'Pod' && kind !== 'Secret')) throw badRequest(`cannot bind token to object of type ${gvkString(apiVersion, kind)}`);
  const name = str(ref.name);
  const t = core(kind);
  const obj = cluster.tryGet(t, namespace, name);
  if (!obj) throw notFound({ group: '', resource: t.resource }, name);
  if (kind === 'Pod') {
    const runsAs = str((obj.spec as Obj | undefined)?.serviceAccountName);
    if (runsAs !== serviceAccount) throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(serviceAccount)} to pod running with serviceaccount ${JSON.stringify(runsAs)}`);
  }
  const uid = obj.metadata.uid ?? '';
  if (str(ref.uid) && ref.uid !== uid) {
    throw conflict({ group: '', resource: kind }, name, `the UID in the bound object reference (${str(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  const echoed: Obj = {};
  for (const k of ['kind', 'apiVersion', 'name', 'uid']) if (str(ref[k])) echoed[k] = ref[k];
  return { kind, name, uid, echoed };
}

/** Serves `serviceaccounts/<name>/token` in every logical cluster, signing with `tokens`. */
export function tokenRequestSubresource(tokens: ServiceAccountTokens): SubresourceHandler {
  return {
    methods: ['POST'],
    kind: { group: GROUP, version: 'v1', kind: KIND },
    handle: async ({ cluster, namespace, name, body }) => {
      const req: Obj = isPlainObject(body) ? body : {};
      const meta: Obj = isPlainObject(req.metadata) ? req.metadata : {};
      const spec: Obj = isPlainObject(req.spec) ? req.spec : {};
      if (str(meta.name) && meta.name !== name) throw invalid(KIND, GROUP, name, [fieldErrors.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
      if (str(meta.namespace) && meta.namespace !== namespace) throw invalid(KIND, GROUP, name, [fieldErrors.invalid('metadata.namespace', meta.namespace, 'must match the service account namespace if specified')]);
      const sa = cluster.tryGet(SERVICE_ACCOUNT, namespace, name);
      if (!sa) throw notFound({ group: '', resource: 'serviceaccounts' }, name);

      const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [...API_AUDIENCES];
      const expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
      const errs: FieldError[] = [];
      if (expirationSeconds < MIN_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
      if (expirationSeconds > MAX_EXPIRATION_SECONDS) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
      if (errs.length > 0) throw invalid(KIND, GROUP, '', errs);
      const bound = isPlainObject(spec.boundObjectRef) ? boundObject(cluster, namespace, name, spec.boundObjectRef) : undefined;

      const nowMs = Date.now();
      const nowSeconds = Math.floor(nowMs / 1000);
      const claims = ServiceAccountTokens.claims(cluster.name, sa, { audiences, expirationSeconds, nowSeconds, bound });
      return {
        code: 201,
        body: {
          kind: KIND,
          apiVersion: `${GROUP}/v1`,
          metadata: { name, namespace, creationTimestamp: nowRfc3339(new Date(nowMs)) },
          spec: { audiences, expirationSeconds, boundObjectRef: bound ? bound.echoed : null },
          status: { token: tokens.sign(claims), expirationTimestamp: nowRfc3339(new Date(nowMs + expirationSeconds * 1000)) },
        },
      };
    },
  };
}
