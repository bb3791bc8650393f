// The order in which the runtime's webhook objects are written: the Secret, Services and
// NetworkPolicies together, then the Deployment that mounts the Secret, then the webhook
// configuration, so that no call reaches a webhook that does not exist; during a CA rotation the
// configuration first (its bundle trusts both CAs). Against the embedded API server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kyma, Labels, Namespaces, type KymaObject } from '../../src/api/operator/index.js';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import type { KubeObject } from '../../src/kube/object.js';
import { installControlPlane } from '../../src/landscape/control-plane.js';
import { SkrWebhookInstaller } from '../../src/lifecycle/remote/skr-webhook.js';
import { Store } from '../../src/runtime/cache/store.js';
import { clientFromKubeconfig, type Client } from '../../src/runtime/client/index.js';
import { type CaState, DEFAULT_WATCHER_PKI_SETTINGS, WatcherCertificateAuthority } from '../../src/watcher/certificates.js';

const NS = 'kcp-system';

/** The remote client with every apply logged at its start and end (`start Secret`, `end Secret`). */
function loggingApplies(inner: Client, log: string[]): Client {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      if (prop !== 'apply') return (v as (...a: unknown[]) => unknown).bind(target);
      return async (...args: unknown[]) => {
        const kind = (args[0] as KubeObject).kind;
        log.push(`start ${kind}`);
        try {
          return await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          log.push(`end ${kind}`);
        }
      };
    },
  });
}

describe('the runtime webhook objects are written in phases', () => {
  let server: RunningApiServer;
  let kcp: Client;
  let remote: Client;
  let ca: CaState;
  let rotating = false;
  const log: string[] = [];

  function installer(): SkrWebhookInstaller {
    return new SkrWebhookInstaller({
      kcp,
      namespace: NS,
      image: 'kcp-controllers:test',
      kcpAddress: 'kcp.test:8443',
      ca: () => ({ ...ca, rotating }),
      pki: { ...DEFAULT_WATCHER_PKI_SETTINGS, namespace: NS },
      watchers: new Store(),
      certificates: new Store(),
      lastEventAt: () => undefined,
    });
  }

  async function kyma(name: string): Promise<KymaObject> {
    return kcp.create<KymaObject>({ apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name, namespace: NS, labels: { [Labels.RuntimeID]: 'rt-order' } }, spec: { channel: 'regular' } } as KymaObject);
  }

  const remoteKyma = { apiVersion: Kyma.apiVersion, kind: Kyma.kind, metadata: { name: 'default', namespace: Namespaces.Remote, generation: 1 }, spec: { channel: 'regular' } } as KymaObject;

  /** Index of the first start and the last end of each kind's applies in the log. */
  function spans(): Map<string, { start: number; end: number }> {
    const out = new Map<string, { start: number; end: number }>();
    log.forEach((line, i) => {
      const [what, kind] = line.split(' ');
      const s = out.get(kind) ?? { start: Infinity, end: -1 };
      if (what === 'start') s.start = Math.min(s.start, i);
      else s.end = Math.max(s.end, i);
      out.set(kind, s);
    });
    return out;
  }

  before(async () => {
    server = await startApiServer({ port: 0 });
    kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig);
    await installControlPlane(server, kcp);
    const runtime = await server.createCluster('rt-order');
    const plain = clientFromKubeconfig(runtime.kubeconfig);
    await plain.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: Namespaces.Remote } } as KubeObject);
    remote = loggingApplies(plain, log);
    ca = await new WatcherCertificateAuthority(kcp, { ...DEFAULT_WATCHER_PKI_SETTINGS, namespace: NS }).ensure();
  });
  after(async () => {
    await server?.stop();
  });

  it('writes the Secret, Services and NetworkPolicies together, then the Deployment, then the configuration', async () => {
    log.length = 0;
    await installer().sync(await kyma('order-a'), remote, remoteKyma, new AbortController().signal);
    const s = spans();
    assert.deepEqual([...s.keys()].sort(), ['Deployment', 'NetworkPolicy', 'Secret', 'Service', 'ValidatingWebhookConfiguration']);
    const firstPhaseEnd = Math.max(s.get('Secret')!.end, s.get('Service')!.end, s.get('NetworkPolicy')!.end);
    assert.ok(s.get('Deployment')!.start > firstPhaseEnd, 'the Deployment after the Secret it mounts');
    assert.ok(s.get('ValidatingWebhookConfiguration')!.start > s.get('Deployment')!.end, 'the configuration last');
    // The first phase's writes overlapped: some write started before an earlier one ended.
    const firstPhase = log.slice(0, firstPhaseEnd + 1);
    const overlapped = firstPhase.some((line, i) => line.startsWith('start') && i > 0 && firstPhase.slice(0, i).filter((l) => l.startsWith('start')).length > firstPhase.slice(0, i).filter((l) => l.startsWith('end')).length);
    assert.ok(overlapped, `writes in flight together: ${firstPhase.join(', ')}`);
  });

  it('during a CA rotation writes the configuration first', async () => {
    log.length = 0;
    rotating = true;
    try {
      await installer().sync(await kyma('order-b'), remote, remoteKyma, new AbortController().signal);
    } finally {
      rotating = false;
    }
    const s = spans();
    const others = ['Secret', 'Service', 'NetworkPolicy', 'Deployment'].map((k) => s.get(k)!.start);
    assert.ok(s.get('ValidatingWebhookConfiguration')!.end < Math.min(...others), 'the configuration before everything else');
    assert.ok(s.get('Deployment')!.start > s.get('Secret')!.end, 'the Deployment after the Secret');
  });
});
