// The modules of bench:fleet, written as `kcp module push` reads them (`<dir>/<module>/<version>/`):
// each is what a real Kyma module ships, 13 objects: its CRD, the manager's ServiceAccount,
// ClusterRole and binding, a leader-election Role and binding, a ConfigMap, a Secret, the manager
// Deployment, a metrics Service, a NetworkPolicy, a PodDisruptionBudget and a PriorityClass; plus
// the default CR. The landscape's kubelet simulation makes the Deployment available and its module
// operator simulation reports the CR Ready, so a module installs as it would on a real runtime.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FLEET_MODULE_VERSION = '1.0.0';
export const OBJECTS_PER_MODULE = 13;

/** Kind of a module's custom resource: `fleet-alpha` -> `FleetAlpha`. */
export function moduleKind(name: string): string {
  return name
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

function groupOf(name: string): string {
  return `${name}.bench.example`;
}

function manifestYaml(name: string, version: string): string {
  const kind = moduleKind(name);
  const plural = `${kind.toLowerCase()}s`;
  const group = groupOf(name);
  const manager = `${name}-manager`;
  const labels = `    app.kubernetes.io/name: ${name}\n    app.kubernetes.io/component: ${name}`;
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${plural}.${group}
  labels:
${labels}
spec:
  group: ${group}
  names:
    kind: ${kind}
    listKind: ${kind}List
    plural: ${plural}
    singular: ${kind.toLowerCase()}
  scope: Namespaced
  versions:
    - name: v1alpha1
      served: true
      storage: true
      subresources:
        status: {}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas:
                  type: integer
                  minimum: 1
                  default: 1
                logLevel:
                  type: string
                  enum: [debug, info, warn, error]
                  default: info
            status:
              type: object
              x-kubernetes-preserve-unknown-fields: true
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${manager}
  namespace: kyma-system
  labels:
${labels}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${manager}
  labels:
${labels}
rules:
  - apiGroups: ["${group}"]
    resources: ["${plural}", "${plural}/status"]
    verbs: ["get", "list", "watch", "update", "patch"]
  - apiGroups: ["apps"]
    resources: ["deployments"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
  - apiGroups: [""]
    resources: ["configmaps", "secrets", "services"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: ${manager}
  labels:
${labels}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: ${manager}
subjects:
  - kind: ServiceAccount
    name: ${manager}
    namespace: kyma-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: ${name}-leader-election
  namespace: kyma-system
  labels:
${labels}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${name}-leader-election
  namespace: kyma-system
  labels:
${labels}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${name}-leader-election
subjects:
  - kind: ServiceAccount
    name: ${manager}
    namespace: kyma-system
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-config
  namespace: kyma-system
  labels:
${labels}
data:
  log-level: info
  metrics-port: "8080"
  reconcile-interval: 1m
---
apiVersion: v1
kind: Secret
metadata:
  name: ${name}-webhook-cert
  namespace: kyma-system
  labels:
${labels}
type: Opaque
stringData:
  note: replaced by the manager at start
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${manager}
  namespace: kyma-system
  labels:
${labels}
spec:
  replicas: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ${name}
    spec:
      serviceAccountName: ${manager}
      priorityClassName: ${name}-priority
      containers:
        - name: manager
          image: images.example/bench/${manager}:${version}
          args: ["--leader-elect", "--metrics-bind-address=:8080"]
          ports:
            - name: metrics
              containerPort: 8080
          resources:
            requests: { cpu: 10m, memory: 32Mi }
            limits: { cpu: 200m, memory: 128Mi }
          envFrom:
            - configMapRef:
                name: ${name}-config
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}-metrics
  namespace: kyma-system
  labels:
${labels}
spec:
  selector:
    app.kubernetes.io/name: ${name}
  ports:
    - name: metrics
      port: 8080
      targetPort: metrics
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: ${name}-allow-metrics
  namespace: kyma-system
  labels:
${labels}
spec:
  podSelector:
    matchLabels:
      app.kubernetes.io/name: ${name}
  policyTypes: [Ingress]
  ingress:
    - ports:
        - port: 8080
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ${manager}
  namespace: kyma-system
  labels:
${labels}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: ${name}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: ${name}-priority
  labels:
${labels}
value: 2000000
globalDefault: false
description: Priority of the ${name} manager
`;
}

function moduleYaml(name: string, version: string, channel: string): string {
  return `name: ${name}
version: ${version}
channels: [${channel}]
manager:
  group: apps
  version: v1
  kind: Deployment
  namespace: kyma-system
  name: ${name}-manager
associatedResources:
  - group: ${groupOf(name)}
    version: v1alpha1
    kind: ${moduleKind(name)}
`;
}

function defaultCrYaml(name: string): string {
  return `apiVersion: ${groupOf(name)}/v1alpha1
kind: ${moduleKind(name)}
metadata:
  name: default
  namespace: kyma-system
spec:
  replicas: 1
  logLevel: info
`;
}

/** A module's manifest (its 13 objects) and default CR, as YAML text. */
export function fleetModuleObjects(name: string, version: string): { manifest: string; defaultCr: string } {
  return { manifest: manifestYaml(name, version), defaultCr: defaultCrYaml(name) };
}

/** A newer version of the fleet's modules, in channel fast: moving channel regular to it upgrades the module fleet-wide. */
export const FLEET_MODULE_UPGRADE = '1.1.0';

/** Writes the modules into `dir` (version 1.0.0 in channel regular; for the names in `upgradable`, 1.1.0 in channel fast too). */
export function writeFleetModules(dir: string, names: readonly string[], upgradable: readonly string[] = []): void {
  for (const name of names) {
    const versions: [string, string][] = [[FLEET_MODULE_VERSION, 'regular'], ...(upgradable.includes(name) ? [[FLEET_MODULE_UPGRADE, 'fast'] as [string, string]] : [])];
    for (const [version, channel] of versions) {
      const versionDir = join(dir, name, version);
      mkdirSync(versionDir, { recursive: true });
      writeFileSync(join(versionDir, 'module.yaml'), moduleYaml(name, version, channel));
      writeFileSync(join(versionDir, 'manifest.yaml'), manifestYaml(name, version));
      writeFileSync(join(versionDir, 'default-cr.yaml'), defaultCrYaml(name));
    }
  }
}
