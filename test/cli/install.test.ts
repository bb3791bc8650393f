// `kcp install`: CRDs, namespace, ServiceAccount and RBAC applied with server-side apply, idempotent;
// --dry-run prints the same objects without a cluster.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import yaml from 'js-yaml';
import { controlPlaneKinds } from '../../src/api/index.js';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { clusterScopedName, CONTROLLERS_NAME, controlPlaneCrdFiles, INSTALL_FLAGS, installObjects, runInstall } from '../../src/cli/install.js';
import { startApiServer } from '../../src/apiserver/server.js';
import { clientFromKubeconfig } from '../../src/runtime/client/index.js';
import type { KubeObject } from '../../src/kube/object.js';

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };

test('kcp install applies CRDs, namespace, ServiceAccount and RBAC into an empty cluster, and a second run changes nothing', async () => {
  const server = await startApiServer({ port: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'kcp-install-'));
  const kubeconfig = join(dir, 'kcp.kubeconfig');
  writeFileSync(kubeconfig, server.clusterAccess('default').kubeconfig);
  const client = clientFromKubeconfig(server.clusterAccess('default').kubeconfig, { qps: 0 });
  try {
    let out = '';
    await runInstall(parseArgs([`--kubeconfig=${kubeconfig}`, '--namespace=kcp-prod'], INSTALL_FLAGS), (t) => (out += t));
    assert.match(out, /customresourcedefinition\/kymas\.operator\.kyma-project\.io serverside-applied/);
    assert.match(out, /9 CRDs established/);

    for (const k of controlPlaneKinds) {
      const crd = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(CRD, { name: `${k.plural}.${k.group}` });
      assert.ok(crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True'), `${k.kind} CRD established`);
      // The kind is served: an empty list answers.
      assert.deepEqual((await client.list({ apiVersion: k.apiVersion, kind: k.kind }, { namespace: 'kcp-prod' })).items, []);
    }
    const role = await client.get<KubeObject & { rules: unknown[] }>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role' }, { namespace: 'kcp-prod', name: CONTROLLERS_NAME });
    const expectedRole = installObjects('kcp-prod').find((o) => o.kind === 'Role') as KubeObject & { rules: unknown[] };
    assert.deepEqual(role.rules, expectedRole.rules);
    const binding = await client.get<KubeObject & { subjects: unknown[] }>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding' }, { name: clusterScopedName('kcp-prod') });
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: CONTROLLERS_NAME, namespace: 'kcp-prod' }]);
    await client.get({ apiVersion: 'v1', kind: 'ServiceAccount' }, { namespace: 'kcp-prod', name: CONTROLLERS_NAME });

    const versions = async () => {
      const all: string[] = [];
      for (const o of installObjects('kcp-prod')) all.push(`${o.kind}/${o.metadata.name}@${(await client.get(o, { namespace: o.metadata.namespace, name: o.metadata.name ?? '' })).metadata.resourceVersion}`);
      return all;
    };
    const before = await versions();
    await runInstall(parseArgs([`--kubeconfig=${kubeconfig}`, '--namespace=kcp-prod'], INSTALL_FLAGS), () => undefined);
    assert.deepEqual(await versions(), before, 'a second install is a no-op: no object gets a new resourceVersion');
  } finally {
    client.close();
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
});

test('kcp install --dry-run prints the objects as YAML without a cluster; the CRDs are config/crd\'s', async () => {
  let out = '';
  await runInstall(parseArgs(['--dry-run', '-o', 'yaml'], INSTALL_FLAGS), (t) => (out += t));
  const docs = yaml.loadAll(out) as KubeObject[];
  assert.deepEqual(docs, installObjects('kcp-system'));
  const crds = docs.filter((d) => d.kind === 'CustomResourceDefinition');
  const files = controlPlaneCrdFiles();
  assert.equal(crds.length, files.length);
  for (const [i, file] of files.entries()) {
    const onDisk = yaml.load(readFileSync(new URL(`../../../config/crd/${file}`, import.meta.url), 'utf8'));
    assert.deepEqual(crds[i], onDisk, `${file} matches what install applies (run npm run generate if not)`);
  }
  assert.ok(!docs.some((d) => d.metadata.name === 'shoots.core.gardener.cloud'), 'the garden\'s Shoot CRD is not installed into the KCP');
});

test('kcp install without --kubeconfig or with an unreadable one fails with one line', async () => {
  const saved = process.env.KUBECONFIG;
  delete process.env.KUBECONFIG;
  try {
    await assert.rejects(runInstall(parseArgs([], INSTALL_FLAGS)), (e: Error) => e instanceof UsageError && e.message.startsWith('--kubeconfig is required'));
    await assert.rejects(runInstall(parseArgs(['--kubeconfig=/nonexistent/k'], INSTALL_FLAGS)), (e: Error) => e instanceof UsageError && e.message === 'cannot read --kubeconfig /nonexistent/k: no such file');
    await assert.rejects(runInstall(parseArgs(['--dry-run', '--namespace=KCP'], INSTALL_FLAGS)), /--namespace must be a DNS label/);
  } finally {
    if (saved !== undefined) process.env.KUBECONFIG = saved;
  }
});
