// Waiting for applied CRDs: free when the apply answers show them Established, a read with a growing
// pause otherwise, at once an error for a CRD whose names the server refused, and a timeout.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CrdNotEstablishedError, waitEstablished } from '../../src/lifecycle/crd-established.js';
import type { Client } from '../../src/runtime/client/interface.js';
import type { KubeObject } from '../../src/kube/object.js';

function crd(name: string, conditions: { type: string; status: string; message?: string }[]): KubeObject {
  return { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name }, status: { conditions } } as unknown as KubeObject;
}

const accepted = { type: 'NamesAccepted', status: 'True' };
const established = { type: 'Established', status: 'True' };

/** A client whose GET of a CRD answers from `answers` (the next one each time, the last one repeated), counting reads. */
function readsFrom(answers: Record<string, KubeObject[]>): { client: Client; reads: string[] } {
  const reads: string[] = [];
  const client = {
    get: (_kind: unknown, key: { name: string }) => {
      reads.push(key.name);
      const list = answers[key.name] ?? [];
      return Promise.resolve(list.length > 1 ? list.shift()! : list[0]);
    },
  } as unknown as Client;
  return { client, reads };
}

describe('waitEstablished', () => {
  const signal = new AbortController().signal;

  it('reads nothing when the apply answers show every CRD Established', async () => {
    const { client, reads } = readsFrom({});
    await waitEstablished(client, new Map([['a.example.com', crd('a.example.com', [accepted, established])]]), 1_000, signal);
    assert.deepEqual(reads, []);
  });

  it('reads a CRD not yet Established until it is', async () => {
    const { client, reads } = readsFrom({ 'a.example.com': [crd('a.example.com', [accepted]), crd('a.example.com', [accepted, established])] });
    await waitEstablished(client, new Map([['a.example.com', crd('a.example.com', [accepted])]]), 5_000, signal);
    assert.deepEqual(reads, ['a.example.com', 'a.example.com']);
  });

  it('ends at once, saying why, for a CRD whose names were refused', async () => {
    const { client, reads } = readsFrom({});
    const refused = crd('b.example.com', [{ type: 'NamesAccepted', status: 'False', message: '"widgets" is already in use' }]);
    await assert.rejects(waitEstablished(client, new Map([['b.example.com', refused]]), 5_000, signal), /b\.example\.com: names not accepted: "widgets" is already in use/);
    assert.deepEqual(reads, [], 'no wait for a CRD that will never be Established');
  });

  it('gives up after the timeout, naming the CRDs still pending', async () => {
    const { client } = readsFrom({ 'c.example.com': [crd('c.example.com', [accepted])] });
    const err = await waitEstablished(client, new Map([['c.example.com', crd('c.example.com', [accepted])]]), 200, signal).then(
      () => assert.fail('it gave up'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof CrdNotEstablishedError);
    assert.deepEqual(err.names, ['c.example.com']);
  });
});
