// Upstream's metrics scenarios (kyma-project/lifecycle-manager .github/workflows/test-e2e.yml:
// kyma-metrics, fips-mode-metric; tests/e2e/kyma_metrics_test.go, fipsMode_metric_test.go), step by
// step on the in-memory landscape, reading the controllers' /metrics text as upstream's
// commontestutils/metrics.go reads it.
import assert from 'node:assert/strict';
import { getFips } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, Manifest, Namespaces, type ManifestObject } from '../../../src/api/operator/index.js';
import type { KubeObject } from '../../../src/kube/object.js';
import { fipsMode, FipsModes } from '../../../src/lifecycle/metrics.js';
import { isNotFound } from '../../../src/runtime/client/errors.js';
import type { HttpClient } from '../../../src/runtime/client/index.js';
import type { Secret } from '../../../src/runtime/remote/secret.js';
import { createCertificateAuthority } from '../../../src/util/x509.js';
import { waitFor } from '../../support/wait.js';
import { MODULE, NS, SAMPLE, SECRET, sample, startWatcherEnv, type WatcherEnv } from './watcher-env.js';

const DAY_MS = 24 * 60 * 60 * 1000;

const STATES = ['Ready', 'Processing', 'Error', 'Deleting', 'Warning'];
/** The module operator's finalizer on its CR (upstream's template-operator keeps one). */
const OPERATOR_FINALIZER = 'operator.kyma-project.io/template-operator';

describe('parity: lifecycle manager metrics', () => {
  let env: WatcherEnv;
  before(async () => {
    // The CA Secret is looked at twice a second (upstream's gateway-secret-server-cert-metric sets the
    // gateway secret requeue to 1 s); lifetimes and the 14-day expiry window are upstream's defaults.
    env = await startWatcherEnv({ watcher: { caRefreshMs: 500 } });
  });
  after(async () => {
    await env?.stop();
  });

  const requeues = (reason: string, type: string) => sample(env.metrics(), 'lifecycle_mgr_requeue_reason_total', { requeue_reason: reason, requeue_type: type }) ?? 0;
  const kymaState = (kyma: string, state: string) => sample(env.metrics(), 'lifecycle_mgr_kyma_state', { kyma_name: kyma, state, shoot: `shoot-${kyma}`, instance_id: `instance-${kyma}` });
  const moduleState = (kyma: string, state: string) => sample(env.metrics(), 'lifecycle_mgr_module_state', { kyma_name: kyma, module_name: MODULE, state, shoot: `shoot-${kyma}`, instance_id: `instance-${kyma}` });

  it('kyma-metrics: module enable and disable count upstream\'s Manifest requeue reasons, Kyma deletion counts kyma_deletion once and drops the Kyma\'s series', async () => {
    const id = 'kyma-sample';
    const remote: HttpClient = await env.runtime(id);
    const runtimeKyma = { namespace: Namespaces.Remote, name: 'default' };
    const cr = { namespace: Namespaces.Remote, name: 'sample-yaml' };

    // When Kyma Module is enabled on SKR Kyma CR (and the module operator reports its CR Ready).
    await remote.patch(Kyma, runtimeKyma, 'merge', { spec: { modules: [{ name: MODULE }] } });
    await waitFor('the module CR in the runtime', () => remote.get(SAMPLE, cr).catch(() => undefined), 30_000);
    await remote.patch(SAMPLE, cr, 'merge', { metadata: { finalizers: [OPERATOR_FINALIZER] } });
    await remote.patch(SAMPLE, cr, 'merge', { status: { state: 'Ready' } }, { subresource: 'status' });

    // Then KCP Kyma CR is in "Ready" State, and the state metrics say so.
    await waitFor('the KCP Kyma Ready with the module Ready', async () => {
      const k = await env.kyma(id);
      return k.status?.state === 'Ready' && k.status.modules?.some((m) => m.name === MODULE && m.state === 'Ready');
    }, 30_000);
    await waitFor('lifecycle_mgr_kyma_state Ready 1', () => kymaState(id, 'Ready') === 1);
    await waitFor('lifecycle_mgr_module_state Ready 1', () => moduleState(id, 'Ready') === 1);
    for (const s of STATES.filter((s) => s !== 'Ready')) assert.equal(kymaState(id, s), 0, `kyma_state ${s}`);

    // Then Related Manifest Requeue Metrics Get Increased.
    assert.ok(requeues('manifest_add_finalizer', 'intended') >= 1, 'manifest_add_finalizer');
    assert.ok(requeues('manifest_sync_resources_enqueue_required', 'intended') >= 1, 'manifest_sync_resources_enqueue_required');

    // When Kyma Module is disabled: the default CR is deleted and waits for its operator.
    const [manifest] = (await env.land.kcp.list<ManifestObject>(Manifest, { namespace: NS, labelSelector: `${Labels.KymaName}=${id}` })).items;
    assert.ok(manifest, 'the Manifest of the module');
    await remote.patch(Kyma, runtimeKyma, 'merge', { spec: { modules: [] } });
    await waitFor('the module CR being deleted', async () => (await remote.get<KubeObject>(SAMPLE, cr)).metadata.deletionTimestamp, 30_000);
    await waitFor('manifest_pre_delete_enqueue_required counted', () => requeues('manifest_pre_delete_enqueue_required', 'intended') >= 1);
    // The operator finishes its CR.
    await remote.patch(SAMPLE, cr, 'merge', { metadata: { finalizers: null } });

    // Then Manifest CR is removed, the Kyma is Ready, the module's Ready series is 0 (gone).
    await waitFor('the Manifest removed', () => env.land.kcp.get(Manifest, { namespace: NS, name: manifest.metadata.name ?? '' }).then(() => false, (e: unknown) => isNotFound(e)), 30_000);
    await waitFor('the KCP Kyma Ready without the module', async () => {
      const k = await env.kyma(id);
      return k.status?.state === 'Ready' && !k.status.modules?.some((m) => m.name === MODULE);
    }, 30_000);
    await waitFor('lifecycle_mgr_kyma_state Ready 1', () => kymaState(id, 'Ready') === 1);
    await waitFor('lifecycle_mgr_module_state Ready 0', () => (moduleState(id, 'Ready') ?? 0) === 0);
    // Then Related Manifest Requeue Metrics Get Increased (upstream's reason of the finished deletion).
    assert.ok(requeues('manifest_remove_finalizer_in_deleting', 'intended') >= 1, 'manifest_remove_finalizer_in_deleting');

    // When KCP Kyma CR is deleted.
    assert.equal(requeues('kyma_deletion', 'intended'), 0, 'no Kyma deleted before');
    await env.land.kcp.delete(Kyma, { namespace: NS, name: id });
    await waitFor('the Kyma gone', () => env.kyma(id).then(() => false, (e: unknown) => isNotFound(e)), 30_000);

    // Then count of lifecycle_mgr_requeue_reason_total for kyma_deletion is 1, and the Kyma's series are removed.
    assert.equal(requeues('kyma_deletion', 'intended'), 1);
    for (const s of STATES) {
      assert.equal(kymaState(id, s), undefined, `no kyma_state series for ${s}`);
      assert.equal(moduleState(id, s) ?? 0, 0, `module_state ${s} is 0`);
    }
  });

  it('gateway-secret-server-cert-metric: the server certificate runtimes verify counts as close to expiry once it ends within the window', async () => {
    const closeToExpiry = () => sample(env.metrics(), 'lifecycle_mgr_gateway_secret_server_cert_close_to_expiry');
    // When the server certificate is not close to expiry: Then the metric is set to 0.
    await waitFor('the metric at 0', () => closeToExpiry() === 0);

    // When the server certificate is replaced with one close to expiry. Upstream's gateway presents the
    // watcher CA's certificate; here the listener presents one of that CA: the CA Secret gets a CA that
    // ends in 7 days. A rotation starts at once (the CA is within its renewal period), and for the
    // grace period (4 days) the listener keeps presenting a certificate of the expiring CA.
    const now = Date.now();
    const expiring = await createCertificateAuthority({ commonName: 'klm-watcher-serving', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 7 * DAY_MS) });
    const caKey = { namespace: NS, name: 'klm-watcher' };
    const current = await env.land.kcp.get<Secret>(SECRET, caKey);
    const pem = (text: string) => Buffer.from(text, 'utf8').toString('base64');
    await env.land.kcp.update<Secret>({ ...current, data: { 'tls.crt': pem(expiring.certPem), 'tls.key': pem(expiring.keyPem), 'ca.crt': pem(expiring.certPem) } });

    // Then the metric is set to 1.
    await waitFor('the metric at 1', () => closeToExpiry() === 1, 20_000);
    const ca = env.cp.watcher?.ca();
    assert.equal(ca?.rotating, true, 'a rotation started');
    assert.equal(ca?.serving.certPem, expiring.certPem, 'the listener still presents a certificate of the expiring CA');
  });

  it('fips-mode-metric: lifecycle_mgr_fips_mode reports the process\'s FIPS mode with upstream\'s values', () => {
    // Given KCP Cluster, When KLM is initialized: the gauge is there, with the mode this Node runs in.
    const expected = getFips() === 1 ? (process.execArgv.includes('--force-fips') ? FipsModes.Only : FipsModes.On) : FipsModes.Off;
    assert.equal(sample(env.metrics(), 'lifecycle_mgr_fips_mode'), expected);
    // Upstream's values for the three modes.
    assert.equal(fipsMode({ enabled: false, forced: false }), 0);
    assert.equal(fipsMode({ enabled: true, forced: false }), 1);
    assert.equal(fipsMode({ enabled: true, forced: true }), 2);
  });
});
