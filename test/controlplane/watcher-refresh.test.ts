// The KCP side of the watcher through a CA rotation: the listener trusts a CA before the control
// plane hands it out (`ca()`, from which the installer issues runtime certificates), and refreshes
// run one at a time. Against the embedded API server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startApiServer, type RunningApiServer } from '../../src/apiserver/server.js';
import { startWatcherRuntime, type WatcherRuntime } from '../../src/controlplane/watcher.js';
import { installControlPlane } from '../../src/landscape/control-plane.js';
import { clientFromKubeconfig } from '../../src/runtime/client/index.js';
import { silentLogger } from '../../src/runtime/log.js';
import { Registry } from '../../src/runtime/metrics.js';

const NS = 'kcp-system';

describe('watcher CA refresh', () => {
  let server: RunningApiServer;
  let watcher: WatcherRuntime;

  before(async () => {
    server = await startApiServer({ port: 0 });
    const kcp = clientFromKubeconfig(server.clusterAccess('default').kubeconfig);
    await installControlPlane(server, kcp);
    watcher = await startWatcherRuntime({
      kcp,
      namespace: NS,
      config: { listen: { host: '127.0.0.1', port: 0 }, trustGateway: false, image: 'kcp:test', pki: {}, caRefreshMs: 3_600_000 },
      registry: new Registry(),
      log: silentLogger,
    });
  });
  after(async () => {
    await watcher?.stop();
    await server?.stop();
  });

  it('the listener trusts the new CA bundle before ca() returns it, through a rotation and its end; concurrent refreshes run one after the other', async () => {
    // What the listener trusts, as it is told.
    const trusted: string[] = [];
    const update = watcher.listener.updateTls.bind(watcher.listener);
    watcher.listener.updateTls = (tls) => {
      trusted.push(tls.clientCaPem);
      update(tls);
    };
    // ca() as seen by anyone between two turns of the event loop, with what the listener trusted then.
    const seen: { resourceVersion?: string; bundle: string; listenerTrusts?: string }[] = [];
    let polling = true;
    const poll = (): void => {
      const ca = watcher.ca();
      if (ca && ca.resourceVersion !== seen.at(-1)?.resourceVersion) seen.push({ resourceVersion: ca.resourceVersion, bundle: ca.trustedPem, listenerTrusts: trusted.at(-1) });
      if (polling) setImmediate(poll);
    };
    poll();
    const before = watcher.ca();
    assert.ok(before);

    await watcher.authority.rotate();
    // The timer's refresh and a caller's at once: both run, one after the other.
    await Promise.all([watcher.refresh(), watcher.refresh()]);
    const rotating = watcher.ca();
    assert.equal(rotating?.rotating, true, 'a rotation in progress');
    assert.notEqual(rotating?.resourceVersion, before.resourceVersion);

    // The rotation ends: the old CA leaves the bundle.
    watcher.authority.settings.now = () => new Date(Date.now() + watcher.authority.settings.rotationGraceMs + 1_000);
    await watcher.refresh();
    polling = false;
    poll(); // a change at the end of the refresh, seen by whoever runs next
    assert.equal(watcher.ca()?.rotating, false, 'the rotation ended');

    const changes = seen.slice(1);
    assert.equal(changes.length, 2, `two CA changes seen: ${changes.map((c) => c.resourceVersion).join(', ')}`);
    for (const c of changes) assert.equal(c.listenerTrusts, c.bundle, `the listener trusted the bundle of CA version ${c.resourceVersion} when ca() returned it`);
    assert.equal(trusted.length, 2, 'the second of the concurrent refreshes found nothing to do');
  });
});
