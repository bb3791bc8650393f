// The watcher's event sender takes its TLS context from the process's cache: senders with the same
// runtime credentials share one, renewed credentials get a new one, and closed senders let go.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCA, createClientCert } from '../../src/apiserver/pki.js';
import { secureContexts } from '../../src/util/tls-contexts.js';
import { KcpEventSender } from '../../src/watcher/sender.js';

describe('KCP event sender TLS context', () => {
  it('is shared by senders with the same credentials and replaced when they change', async () => {
    const ca = await createCA('watcher-ca');
    const first = await createClientCert(ca, { commonName: 'runtime-1' });
    const renewed = await createClientCert(ca, { commonName: 'runtime-1' });
    const credentials = { certPem: first.certPem, keyPem: first.keyPem, caPem: ca.certPem };
    const start = secureContexts.stats();

    const senders = Array.from({ length: 3 }, () => new KcpEventSender({ kcpAddress: '127.0.0.1:1', credentials }));
    assert.equal(secureContexts.stats().created - start.created, 1, 'three senders, one context');
    assert.equal(secureContexts.stats().held - start.held, 1);

    senders[0].updateCredentials({ ...credentials, certPem: renewed.certPem, keyPem: renewed.keyPem });
    assert.equal(secureContexts.stats().created - start.created, 2, 'renewed credentials, a new context');
    assert.equal(secureContexts.stats().held - start.held, 2);
    senders[0].updateCredentials({ ...credentials, certPem: renewed.certPem, keyPem: renewed.keyPem });
    assert.equal(secureContexts.stats().created - start.created, 2, 'unchanged credentials keep the context');

    for (const s of senders) s.close();
    assert.equal(secureContexts.stats().held, start.held, 'closed senders hold no context');
  });
});
