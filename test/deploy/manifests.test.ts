// deploy/: the manifests parse, agree with `kcp install` (one RBAC source), start `kcp run` with
// flags it accepts, mount the files those flags name, and the image runs `kcp run` as non-root; the
// module managers' ClusterRole grants what docs/module-sync.md says and nothing more.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';
import { parseArgs } from '../../src/cli/args.js';
import { CONTROLLERS_NAME, controlPlaneCrdFiles, rbacObjects } from '../../src/cli/install.js';
import { parseRunConfig, RUN_FLAGS, RUN_FLAG_TABLE } from '../../src/cli/run.js';
import { LEADER_POD_LABEL } from '../../src/controlplane/leader-pod.js';
import type { KubeObject } from '../../src/kube/object.js';
import { DEFAULT_LISTENER } from '../../src/watcher/constants.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');
const docs = (path: string): KubeObject[] => (yaml.loadAll(read(path)) as (KubeObject | null)[]).filter((d): d is KubeObject => d !== null);

interface Container {
  image: string;
  args: string[];
  env?: { name: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports: { name: string; containerPort: number }[];
  livenessProbe: { httpGet: { path: string; port: string } };
  readinessProbe: { httpGet: { path: string; port: string } };
  volumeMounts: { name: string; mountPath: string }[];
  securityContext: { allowPrivilegeEscalation: boolean; readOnlyRootFilesystem: boolean };
}
interface DeploymentObject extends KubeObject {
  spec: {
    replicas: number;
    template: {
      metadata: { labels: Record<string, string> };
      spec: { serviceAccountName: string; securityContext: { runAsNonRoot: boolean; runAsUser: number }; containers: Container[]; volumes: { name: string }[] };
    };
  };
}

function deployment(path: string): DeploymentObject {
  const all = docs(path);
  assert.equal(all.length, 1);
  assert.equal(all[0].kind, 'Deployment');
  return all[0] as DeploymentObject;
}

test('deploy/manifests/rbac.yaml is exactly what kcp install applies besides the CRDs', () => {
  assert.deepEqual(docs('deploy/manifests/rbac.yaml'), rbacObjects('kcp-system'), 'regenerate with: node dist/src/cli/main.js install --dry-run --skip-crds');
});

test('deploy/manifests/module-manager-rbac.yaml is one ClusterRole: read ModuleConfigs, write SyncResources, read their status', () => {
  const all = docs('deploy/manifests/module-manager-rbac.yaml');
  assert.deepEqual(
    all.map((o) => `${o.apiVersion} ${o.kind} ${o.metadata.name ?? ''}`),
    ['rbac.authorization.k8s.io/v1 ClusterRole kcp-module-manager'],
    'the RoleBinding is an example in a comment, not an object',
  );
  const rules = (all[0] as KubeObject & { rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }).rules;
  const granted = rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))).sort();
  const group = 'operator.kyma-project.io';
  const expected = [
    ...['get', 'list', 'watch'].map((v) => `${v} ${group}/moduleconfigs`),
    ...['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'].map((v) => `${v} ${group}/syncresources`),
    `get ${group}/syncresources/status`,
  ].sort();
  assert.deepEqual(granted, expected);
});

test('the kustomization lists existing files, and its CRD note names exactly the control-plane CRDs in config/crd', () => {
  const kustomization = read('deploy/manifests/kustomization.yaml');
  const parsed = yaml.load(kustomization) as { resources: string[] };
  assert.ok(parsed.resources.length > 0, 'the kustomization lists resources (an empty list would check nothing)');
  for (const r of parsed.resources) assert.ok(existsSync(`${root}deploy/manifests/${r}`), `${r} exists`);
  const named = [...kustomization.matchAll(/config\/crd\/([\w.-]+\.yaml)/g)].map((m) => m[1]);
  assert.deepEqual(new Set(named), new Set(controlPlaneCrdFiles()));
  for (const f of named) assert.ok(existsSync(`${root}config/crd/${f}`), `config/crd/${f} exists`);
});

for (const [path, mode] of [
  ['deploy/manifests/deployment.yaml', 'leader election'],
  ['deploy/manifests/deployment-sharded.yaml', 'shards'],
] as const) {
  test(`${path} (${mode}) starts kcp run with flags it accepts, mounts the files they name, and probes the health port`, () => {
    const d = deployment(path);
    const pod = d.spec.template.spec;
    const c = pod.containers[0];
    // The environment the downward API gives the container: its fieldRefs, filled with sample values.
    const fieldValues: Record<string, string> = { 'metadata.name': 'kcp-controllers-abc12', 'metadata.namespace': 'kcp-system' };
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, fieldValues[e.valueFrom?.fieldRef?.fieldPath ?? ''] ?? '']));
    const config = parseRunConfig(parseArgs(c.args, RUN_FLAG_TABLE, { lastWins: true }), env);
    assert.equal(config.infrastructureManager && config.lifecycleManager, true, 'both managers run');
    if (mode === 'shards') {
      assert.equal(d.spec.replicas, 3);
      assert.ok(config.sharding && config.sharding.shards > 1 && !config.leaderElection);
    } else {
      assert.ok(d.spec.replicas >= 2);
      assert.ok(config.leaderElection && !config.sharding);
      assert.deepEqual(config.leaderElection.pod, { namespace: 'kcp-system', name: 'kcp-controllers-abc12' }, 'the leader labels its own Pod (the events Service selects it)');
    }
    assert.equal(config.kubeconfig, undefined, 'the KCP is reached with the in-cluster service account');
    assert.equal(pod.serviceAccountName, CONTROLLERS_NAME, 'the ServiceAccount kcp install creates');
    for (const file of [config.gardenerKubeconfig, config.converterConfig]) {
      assert.ok(file && c.volumeMounts.some((m) => file.startsWith(`${m.mountPath}/`)), `${file} is on a mounted volume`);
    }
    for (const m of c.volumeMounts) assert.ok(pod.volumes.some((v) => v.name === m.name), `volume ${m.name} is declared`);
    const port = (name: string) => c.ports.find((p) => p.name === name)?.containerPort;
    assert.equal(port('health'), config.health?.port);
    assert.equal(port('metrics'), config.metrics?.port);
    assert.equal(port('webhook'), config.runtimeAdmission?.listen.port, 'the Runtime admission webhook listens on the port the webhook Service targets');
    assert.deepEqual(config.runtimeAdmission?.service, { namespace: 'kcp-system', name: 'kcp-controllers-webhook', port: 443 });
    assert.deepEqual([c.livenessProbe.httpGet, c.readinessProbe.httpGet], [{ path: '/healthz', port: 'health' }, { path: '/readyz', port: 'health' }]);
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.notEqual(pod.securityContext.runAsUser, 0);
    assert.equal(c.securityContext.allowPrivilegeEscalation, false);
    assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  });
}

test('the metrics and webhook Services select the controllers\' pods and target their ports; the events Service only the leader\'s', () => {
  const [svc, webhook, events] = docs('deploy/manifests/service.yaml') as (KubeObject & { spec: { selector: Record<string, string>; ports: { targetPort: string; port: number }[] } })[];
  const pod = deployment('deploy/manifests/deployment.yaml').spec.template;
  for (const [k, v] of Object.entries(svc.spec.selector)) assert.equal(pod.metadata.labels[k], v);
  assert.equal(svc.spec.ports[0].targetPort, 'metrics');
  for (const [k, v] of Object.entries(webhook.spec.selector)) assert.equal(pod.metadata.labels[k], v);
  assert.deepEqual([webhook.metadata.name, webhook.spec.ports[0].port, webhook.spec.ports[0].targetPort], ['kcp-controllers-webhook', 443, 'webhook']);
  // The Service the default Watchers name, on the port the listener serves by default.
  assert.deepEqual([events.metadata.name, events.metadata.namespace, events.spec.ports[0].port], [DEFAULT_LISTENER.serviceName, DEFAULT_LISTENER.serviceNamespace, DEFAULT_LISTENER.port]);
  const container = pod.spec.containers[0];
  assert.equal(container.ports.find((p) => p.name === events.spec.ports[0].targetPort)?.containerPort, parseRunConfig(parseArgs([...container.args, '--enable-kcp-watcher', '--watcher-kcp-address=kcp.example:443'], RUN_FLAG_TABLE, { lastWins: true }), { POD_NAME: 'p', POD_NAMESPACE: 'kcp-system' }).watcher?.listen.port);
  const { [LEADER_POD_LABEL]: leader, ...rest } = events.spec.selector;
  assert.equal(leader, 'true', 'a follower\'s listener is not selected');
  for (const [k, v] of Object.entries(rest)) assert.equal(pod.metadata.labels[k], v);
  assert.equal(pod.metadata.labels[LEADER_POD_LABEL], undefined, 'the Pod template does not carry it: the leader sets it');
});

test('the Dockerfile builds in one stage and runs kcp run as a non-root user from dist and production dependencies in another', () => {
  const dockerfile = read('deploy/Dockerfile');
  const stages = [...dockerfile.matchAll(/^FROM (\S+)(?: AS (\w+))?/gm)];
  assert.equal(stages.length, 2);
  assert.ok(stages.every((s) => s[1].startsWith('node:20')));
  assert.match(dockerfile, /RUN npm ci\b/);
  assert.match(dockerfile, /RUN npx tsc -p deploy\/tsconfig\.build\.json/);
  assert.match(dockerfile, /RUN npm ci --omit=dev/);
  assert.match(dockerfile, /COPY --from=build \/app\/dist\/src \.\/dist\/src/);
  assert.match(dockerfile, /^USER 1000:1000$/m);
  assert.match(dockerfile, /^ENTRYPOINT \["node","dist\/src\/cli\/main\.js","run"\]$/m);
  assert.ok(existsSync(`${root}deploy/tsconfig.build.json`));
  assert.ok(existsSync(`${root}src/cli/main.ts`));
});

test('docs/operations.md documents every flag of kcp run', () => {
  const doc = read('docs/operations.md');
  const missing = RUN_FLAGS.filter((f) => !doc.includes(`\`--${f.name}\``)).map((f) => f.name);
  assert.deepEqual(missing, []);
});
