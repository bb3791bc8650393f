// kubectl 1.32's typed generators (`kubectl create configmap|secret|deployment|...`) send built-in
// kinds as Kubernetes protobuf and ask for protobuf answers; the objects must be stored with the
// values kubectl sent (a replica count of 0, Secret bytes) and read back as with a real cluster.
// Debian's kubectl 1.20 sends the same objects as JSON, its CronJob and PodDisruptionBudget in the
// beta versions kube-apiserver 1.24 still serves.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { kubectl, kubectlMinorVersion, kubectlOk } from '../support/kubectl.js';
import { valueAt } from '../support/value-at.js';

interface Generator {
  /** `kubectl create` arguments (without the namespace). */
  args: string[];
  namespaced: boolean;
  /** What kubectl prints. */
  printed: string;
  /** The object to read back with `kubectl get -o json`. */
  get: string[];
  /** Checks the object read back. */
  check(value: (path: string) => unknown): void;
}

const GENERATORS: Generator[] = [
  {
    args: ['namespace', 'demo'],
    namespaced: false,
    printed: 'namespace/demo created',
    get: ['namespace', 'demo'],
    check: (value) => assert.equal(value('status.phase'), 'Active'),
  },
  {
    args: ['configmap', 'cfg', '--from-literal=a=b', '--from-literal=c=d'],
    namespaced: true,
    printed: 'configmap/cfg created',
    get: ['configmap', 'cfg'],
    check: (value) => assert.deepEqual(value('data'), { a: 'b', c: 'd' }),
  },
  {
    args: ['secret', 'generic', 'sec', '--from-literal=password=s3cr3t', '--from-literal=empty='],
    namespaced: true,
    printed: 'secret/sec created',
    get: ['secret', 'sec'],
    check: (value) => {
      assert.equal(value('type'), 'Opaque');
      assert.deepEqual(value('data'), { empty: '', password: Buffer.from('s3cr3t').toString('base64') });
    },
  },
  {
    args: ['serviceaccount', 'bot'],
    namespaced: true,
    printed: 'serviceaccount/bot created',
    get: ['serviceaccount', 'bot'],
    check: (value) => assert.equal(value('metadata.name'), 'bot'),
  },
  {
    args: ['deployment', 'web', '--image', 'x', '--replicas', '0'],
    namespaced: true,
    printed: 'deployment.apps/web created',
    get: ['deployment', 'web'],
    check: (value) => {
      assert.equal(value('spec.replicas'), 0, 'a replica count of 0 is kept');
      assert.deepEqual(value('spec.selector'), { matchLabels: { app: 'web' } });
      assert.deepEqual(value('spec.template.metadata.labels'), { app: 'web' });
      assert.equal(value('spec.template.spec.containers.0.name'), 'x');
      assert.equal(value('spec.template.spec.containers.0.image'), 'x');
      assert.equal(value('spec.strategy.type'), 'RollingUpdate');
    },
  },
  {
    args: ['job', 'once', '--image', 'busybox'],
    namespaced: true,
    printed: 'job.batch/once created',
    get: ['job', 'once'],
    check: (value) => {
      assert.equal(value('spec.template.spec.restartPolicy'), 'Never');
      assert.equal(value('spec.template.spec.containers.0.image'), 'busybox');
    },
  },
  {
    args: ['role', 'reader', '--verb', 'get', '--resource', 'pods'],
    namespaced: true,
    printed: 'role.rbac.authorization.k8s.io/reader created',
    get: ['role', 'reader'],
    check: (value) => assert.deepEqual(value('rules'), [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }]),
  },
  {
    args: ['rolebinding', 'rb', '--role', 'r', '--user', 'u'],
    namespaced: true,
    printed: 'rolebinding.rbac.authorization.k8s.io/rb created',
    get: ['rolebinding', 'rb'],
    check: (value) => {
      assert.deepEqual(value('roleRef'), { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' });
      assert.deepEqual(value('subjects'), [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'u' }]);
    },
  },
  {
    args: ['cronjob', 'cj', '--image', 'busybox', '--schedule', '*/5 * * * *'],
    namespaced: true,
    printed: 'cronjob.batch/cj created',
    get: ['cronjob', 'cj'],
    check: (value) => {
      assert.equal(value('spec.schedule'), '*/5 * * * *');
      assert.equal(value('spec.jobTemplate.spec.template.spec.containers.0.image'), 'busybox');
    },
  },
  {
    args: ['priorityclass', 'high', '--value', '1000', '--description', 'important'],
    namespaced: false,
    printed: 'priorityclass.scheduling.k8s.io/high created',
    get: ['priorityclass', 'high'],
    check: (value) => {
      assert.equal(value('value'), 1000);
      assert.equal(value('description'), 'important');
      assert.equal(value('globalDefault'), undefined, 'false is left out (omitempty)');
    },
  },
  {
    args: ['poddisruptionbudget', 'pdb', '--selector', 'app=web', '--min-available', '1'],
    namespaced: true,
    printed: 'poddisruptionbudget.policy/pdb created',
    get: ['poddisruptionbudget', 'pdb'],
    check: (value) => {
      assert.equal(value('spec.minAvailable'), 1, 'an IntOrString number');
      assert.deepEqual(value('spec.selector'), { matchLabels: { app: 'web' } });
    },
  },
  {
    args: ['service', 'clusterip', 'svc', '--tcp', '80:8080'],
    namespaced: true,
    printed: 'service/svc created',
    get: ['service', 'svc'],
    check: (value) => {
      assert.equal(value('spec.type'), 'ClusterIP');
      assert.deepEqual(value('spec.ports'), [{ name: '80-8080', port: 80, protocol: 'TCP', targetPort: 8080 }]);
      assert.match(String(value('spec.clusterIP')), /^10\.96\./);
    },
  },
];

describe('kubectl create generators (protobuf bodies)', () => {
  let server: RunningApiServer;
  let dir: string;
  let kc: string;
  /** kubectl's minor version: 1.32 sends protobuf, Debian's 1.20 JSON (and beta versions for cronjob and pdb). */
  let minor = 0;
  const created: { generator: Generator; object: unknown; protobuf: boolean }[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kcp-kubectl-pb-'));
    server = await startApiServer({ port: 0, dataDir: dir });
    kc = join(dir, 'kubeconfig');
    minor = await kubectlMinorVersion(kc);
  });

  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates an object with every generator', async () => {
    const stderrOf = new Map<Generator, string>();
    for (const g of GENERATORS) {
      const ns = g.namespaced ? ['-n', 'demo'] : [];
      // -v=8 logs the requests and their headers: where and in which content type the generator sent.
      const r = await kubectl(kc, ['create', ...g.args, ...ns, '-v=8']);
      assert.equal(r.code, 0, `kubectl create ${g.args.join(' ')}:\n${r.stderr}`);
      assert.equal(r.stdout.trim(), g.printed);
      const object = JSON.parse(await kubectlOk(kc, ['get', ...g.get, ...ns, '-o', 'json'])) as unknown;
      created.push({ generator: g, object, protobuf: /Content-Type: application\/vnd\.kubernetes\.protobuf/.test(r.stderr) });
      stderrOf.set(g, r.stderr);
    }
    if (minor >= 32) {
      assert.deepEqual(created.filter((c) => !c.protobuf).map((c) => c.generator.printed), [], 'kubectl 1.32 sends every generated object as protobuf');
      return;
    }
    assert.deepEqual(created.filter((c) => c.protobuf).map((c) => c.generator.printed), [], `kubectl 1.${minor} sends JSON`);
    // Debian's 1.20 writes CronJobs and PodDisruptionBudgets in the beta versions kube-apiserver 1.24
    // still serves, and shows the server's deprecation warning.
    const beta = [
      ['cronjob', 'batch', 'cronjobs', 'batch/v1beta1 CronJob is deprecated in v1.21+, unavailable in v1.25+; use batch/v1 CronJob'],
      ['poddisruptionbudget', 'policy', 'poddisruptionbudgets', 'policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget'],
    ];
    for (const [generator, group, resource, warning] of beta) {
      const stderr = stderrOf.get(GENERATORS.find((g) => g.args[0] === generator)!)!;
      assert.match(stderr, new RegExp(`\\] POST https://[^/]+/apis/${group}/v1beta1/namespaces/demo/${resource}\\?`));
      assert.ok(stderr.split('\n').includes(`Warning: ${warning}`), stderr);
    }
  });

  it('stores the values kubectl sent', () => {
    assert.ok(created.length > 0);
    for (const { generator, object } of created) generator.check((path) => valueAt(object, path));
  });

  it('shows a ConfigMap created from protobuf with get -o yaml', async () => {
    const yaml = await kubectlOk(kc, ['get', 'configmap', 'cfg', '-n', 'demo', '-o', 'yaml']);
    assert.match(yaml, /^apiVersion: v1\ndata:\n {2}a: b\n {2}c: d\nkind: ConfigMap\nmetadata:\n/);
    assert.match(yaml, /\n {2}name: cfg\n {2}namespace: demo\n/);
  });

  it('deletes a generated object', async () => {
    const out = await kubectlOk(kc, ['delete', 'deployment', 'web', '-n', 'demo']);
    assert.equal(out.trim(), 'deployment.apps "web" deleted');
    const r = await kubectl(kc, ['get', 'deployment', 'web', '-n', 'demo']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /deployments.apps "web" not found/);
  });

  it('reports a refused object with the server\'s message', async () => {
    const r = await kubectl(kc, ['create', 'configmap', 'cfg', '-n', 'demo', '--from-literal=x=y']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /configmaps "cfg" already exists/);
  });
});
