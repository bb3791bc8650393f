// Admission webhooks' matchConditions in the embedded API server: validated when a configuration is
// written, evaluated after rules and selectors, before the call, with kube-apiserver's semantics
// (a false condition skips the webhook; an error with none false skips it under Ignore and refuses
// the write under Fail).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningApiServer, startApiServer } from '../../src/apiserver/server.js';
import { KubeClient } from '../conformance/http.js';
import { AdmissionWebhook } from '../conformance/webhook.js';
import { compileMatchConditions, evaluateMatchConditions } from '../../src/apiserver/match-conditions.js';

const CONFIGS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

interface Condition {
  name?: string;
  expression?: string;
}

interface Review {
  request: { uid: string; name: string; operation: string; options?: { fieldManager?: string } };
}

describe('webhook matchConditions', () => {
  let server: RunningApiServer;
  let c: KubeClient;
  let hook: AdmissionWebhook;
  let configs = 0;

  function config(name: string, conditions: Condition[] | undefined, failurePolicy = 'Fail', resources = ['configmaps']): string {
    return JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        {
          name: `${name}.mc.example.com`,
          clientConfig: { url: `${hook.url}/validate/${name}`, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources }],
          failurePolicy,
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          ...(conditions ? { matchConditions: conditions } : {}),
        },
      ],
    });
  }

  /** Registers a configuration for ConfigMaps with these conditions; returns its name. */
  async function register(conditions: Condition[], failurePolicy = 'Fail'): Promise<string> {
    const name = `mc-${++configs}`;
    const r = await c.request('POST', CONFIGS, { body: config(name, conditions, failurePolicy) });
    assert.equal(r.status, 201, r.text);
    return name;
  }

  async function unregister(name: string): Promise<void> {
    assert.equal((await c.request('DELETE', `${CONFIGS}/${name}`)).status, 200);
  }

  /** The reviews a write brought to the configuration `name` (calls finish before the write answers). */
  async function callsFor<T>(name: string, write: () => Promise<T>): Promise<{ result: T; reviews: Review[] }> {
    const seen = hook.reviews().length;
    const result = await write();
    const reviews = hook
      .reviews()
      .slice(seen)
      .filter((r) => r.path.startsWith(`/validate/${name}`))
      .map((r) => r.review as unknown as Review);
    return { result, reviews };
  }

  /** The API server's count of calls matchConditions left out (`GET /_kcp/stats`). */
  async function skippedByConditions(): Promise<number> {
    return (JSON.parse((await c.request('GET', '/_kcp/stats')).text) as { webhookCalls: { skippedByConditions: number } }).webhookCalls.skippedByConditions;
  }

  const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

  before(async () => {
    hook = await AdmissionWebhook.start('mc', { allowed: true });
    server = await startApiServer({ port: 0 });
    c = new KubeClient({ url: server.url, token: server.adminToken, caPem: server.caPem });
  });
  after(async () => {
    c.close();
    await server.stop();
    await hook.stop();
  });

  it('refuses configurations whose conditions are invalid, with kube-apiserver\'s fields and words', async () => {
    const r = await c.request('POST', CONFIGS, {
      body: config('bad', [
        { name: 'ok', expression: 'request.operation == "CREATE"' },
        { name: '-hello', expression: 'true' },
        { name: 'ok', expression: 'true' },
        { name: 'no-expression', expression: '  ' },
        { expression: 'true' },
        { name: 'syntax', expression: 'object.x in [1, 2,' },
        { name: 'not-bool', expression: '6' },
        { name: 'dyn', expression: 'object.spec.enabled' },
        { name: 'undeclared', expression: 'params.x == 1' },
        { name: 'typo', expression: 'request.nme == "x"' },
        { name: 'nested-typo', expression: 'request.userInfo.user == "x"' },
        { name: 'declared-bool', expression: 'request.dryRun' },
      ]),
    });
    assert.equal(r.status, 422, r.text);
    const status = JSON.parse(r.text) as { reason: string; message: string; details: { causes: { field: string; message: string }[] } };
    assert.equal(status.reason, 'Invalid');
    assert.match(status.message, /^ValidatingWebhookConfiguration\.admissionregistration\.k8s\.io "bad" is invalid: /);
    const byField = status.details.causes.map((cause) => `${cause.field}: ${cause.message}`);
    const at = 'webhooks[0].matchConditions';
    assert.ok(byField.includes(`${at}[1].name: Invalid value: "-hello": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`), byField.join('\n'));
    assert.ok(byField.includes(`${at}[2].name: Duplicate value: "ok"`), byField.join('\n'));
    assert.ok(byField.includes(`${at}[3].expression: Required value`), byField.join('\n'));
    assert.ok(byField.includes(`${at}[4].name: Required value`), byField.join('\n'));
    assert.ok(byField.some((f) => f.startsWith(`${at}[5].expression: Invalid value: "object.x in [1, 2,": compilation failed: ERROR: <input>:1:19: Syntax error: `)), byField.join('\n'));
    assert.ok(byField.includes(`${at}[6].expression: Invalid value: "6": must evaluate to bool but got int`), byField.join('\n'));
    assert.ok(byField.includes(`${at}[7].expression: Invalid value: "object.spec.enabled": must evaluate to bool but got dyn`), byField.join('\n'));
    assert.ok(byField.includes(`${at}[8].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^`), byField.join('\n'));
    assert.ok(byField.includes(`${at}[9].expression: Invalid value: "request.nme == \\"x\\"": compilation failed: ERROR: <input>:1:8: undefined field 'nme'\n | request.nme == "x"\n | .......^`), byField.join('\n'));
    assert.ok(byField.some((f) => f.startsWith(`${at}[10].expression: Invalid value: "request.userInfo.user == \\"x\\"": compilation failed: ERROR: <input>:1:17: undefined field 'user'`)), byField.join('\n'));
    assert.equal(byField.length, 10, byField.join('\n'));

    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const tooMany = await c.request('POST', CONFIGS, { body: config('many', many) });
    assert.equal(tooMany.status, 422, tooMany.text);
    assert.deepEqual(
      (JSON.parse(tooMany.text) as { details: { causes: { field: string; message: string }[] } }).details.causes.map((cause) => `${cause.field}: ${cause.message}`),
      ['webhooks[0].matchConditions: Too many: 65: must have at most 64 items'],
    );
    const sixtyFour = await c.request('POST', CONFIGS, { body: config('sixty-four', many.slice(0, 64)) });
    assert.equal(sixtyFour.status, 201, sixtyFour.text);
    await unregister('sixty-four');
  });

  it('calls the webhook only when every condition is true, with object, oldObject and request as kube-apiserver gives them', async () => {
    const name = await register([
      { name: 'not-quiet', expression: '!has(request.options.fieldManager) || request.options.fieldManager != "quiet"' },
      { name: 'labelled-or-deleted', expression: 'object == null || (has(object.metadata.labels) && object.metadata.labels["watch"] == "yes")' },
      { name: 'create-has-no-old', expression: 'request.operation != "CREATE" || oldObject == null' },
    ]);
    const skippedBefore = await skippedByConditions();
    try {
      // Unlabelled: the second condition is false.
      const plain = await callsFor(name, () => c.request('POST', CONFIGMAPS, { body: cm('plain') }));
      assert.equal(plain.result.status, 201, plain.result.text);
      assert.equal(plain.reviews.length, 0);
      // Labelled, written by "quiet": the first is false.
      const watched = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', labels: { watch: 'yes' } }, data: { a: '1' } });
      const quiet = await callsFor(name, () => c.request('POST', `${CONFIGMAPS}?fieldManager=quiet`, { body: watched }));
      assert.equal(quiet.result.status, 201, quiet.result.text);
      assert.equal(quiet.reviews.length, 0);
      // The same object changed by someone else: all true, one call.
      const edit = await callsFor(name, () => c.request('PATCH', `${CONFIGMAPS}/watched?fieldManager=editor`, { body: JSON.stringify({ data: { a: '2' } }), contentType: 'application/merge-patch+json' }));
      assert.equal(edit.result.status, 200, edit.result.text);
      assert.equal(edit.reviews.length, 1);
      assert.equal(edit.reviews[0].request.operation, 'UPDATE');
      assert.equal(edit.reviews[0].request.options?.fieldManager, 'editor');
      // Two webhooks called for one write: a request uid each, as kube-apiserver's.
      const second = `mc-${++configs}`;
      assert.equal((await c.request('POST', CONFIGS, { body: config(second, undefined) })).status, 201);
      try {
        const seen = hook.reviews().length;
        const both = await c.request('PATCH', `${CONFIGMAPS}/watched?fieldManager=editor`, { body: JSON.stringify({ data: { a: '3' } }), contentType: 'application/merge-patch+json' });
        assert.equal(both.status, 200, both.text);
        const uids = hook.reviews().slice(seen).map((r) => (r.review as unknown as Review).request.uid);
        assert.equal(uids.length, 2);
        assert.notEqual(uids[0], uids[1]);
      } finally {
        await unregister(second);
      }
      // A server-side apply by "quiet" carries its field manager in the options too: skipped.
      const apply = await callsFor(name, () =>
        c.request('PATCH', `${CONFIGMAPS}/watched?fieldManager=quiet&force=true`, { body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'watched', labels: { watch: 'yes' } }, data: { b: '1' } }), contentType: 'application/apply-patch+yaml' }),
      );
      assert.equal(apply.result.status, 200, apply.result.text);
      assert.equal(apply.reviews.length, 0);
      // DELETE: object is null, so the second condition holds; DeleteOptions carry no field manager
      // (not even one named in the query): the first too.
      const del = await callsFor(name, () => c.request('DELETE', `${CONFIGMAPS}/watched?fieldManager=quiet`));
      assert.equal(del.result.status, 200, del.result.text);
      assert.equal(del.reviews.length, 1);
      assert.equal(del.reviews[0].request.operation, 'DELETE');
      assert.equal(del.reviews[0].request.options?.fieldManager, undefined);
      assert.equal((await skippedByConditions()) - skippedBefore, 3, 'plain, quiet and the apply were left out');
    } finally {
      await unregister(name);
    }
  });

  it('skips the webhook on a false condition even when another one fails', async () => {
    const name = await register([
      { name: 'fails', expression: 'object.metadata.labels["missing"] == "x"' },
      { name: 'false', expression: 'request.name != "skip-me"' },
    ]);
    try {
      const skipped = await callsFor(name, () => c.request('POST', CONFIGMAPS, { body: cm('skip-me') }));
      assert.equal(skipped.result.status, 201, skipped.result.text);
      assert.equal(skipped.reviews.length, 0);
    } finally {
      await unregister(name);
    }
  });

  it('on an error with none false: Fail refuses the write with 403 and calls nothing, Ignore skips the webhook and lets it through', async () => {
    const failing = { name: 'fails', expression: 'object.metadata.labels["missing"] == "x"' };
    const strict = await register([failing], 'Fail');
    // Another configuration matching the same write, without conditions: not called either.
    const plain = `mc-${++configs}`;
    assert.equal((await c.request('POST', CONFIGS, { body: config(plain, undefined) })).status, 201);
    try {
      const seen = hook.reviews().length;
      const refused = await callsFor(strict, () => c.request('POST', CONFIGMAPS, { body: cm('refused') }));
      assert.equal(hook.reviews().length, seen, 'no webhook of the write was called');
      assert.equal(refused.result.status, 403, refused.result.text);
      const status = JSON.parse(refused.result.text) as { reason: string; message: string; details: { name: string; kind: string } };
      assert.equal(status.reason, 'Forbidden');
      assert.match(status.message, /^configmaps "refused" is forbidden: expression 'object\.metadata\.labels\["missing"\] == "x"' resulted in error: /);
      assert.deepEqual(status.details, { name: 'refused', kind: 'configmaps' });
      assert.equal(refused.reviews.length, 0);
      assert.equal((await c.request('GET', `${CONFIGMAPS}/refused`)).status, 404, 'nothing was stored');
    } finally {
      await unregister(strict);
      await unregister(plain);
    }
    const lenient = await register([failing], 'Ignore');
    try {
      const through = await callsFor(lenient, () => c.request('POST', CONFIGMAPS, { body: cm('through') }));
      assert.equal(through.result.status, 201, through.result.text);
      assert.equal(through.reviews.length, 0);
      // The same webhook is still called when its condition holds (the write's labels have the key).
      const labelled = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labelled', labels: { missing: 'x' } } });
      const called = await callsFor(lenient, () => c.request('POST', CONFIGMAPS, { body: labelled }));
      assert.equal(called.result.status, 201, called.result.text);
      assert.equal(called.reviews.length, 1);
    } finally {
      await unregister(lenient);
    }
  });

  it('merges conditions by name under server-side apply and strategic merge patch, each field manager owning its own', async () => {
    const name = 'mc-ssa';
    const hookName = `${name}.mc.example.com`;
    const full = JSON.parse(config(name, [{ name: 'a', expression: 'true' }], 'Ignore')) as Record<string, unknown>;
    const apply = (manager: string, body: unknown) =>
      c.request('PATCH', `${CONFIGS}/${name}?fieldManager=${manager}&force=true`, { body: JSON.stringify(body), contentType: 'application/apply-patch+yaml' });
    try {
      const first = await apply('owner-a', full);
      assert.equal(first.status, 201, first.text);
      const second = await apply('owner-b', { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks: [{ name: hookName, matchConditions: [{ name: 'b', expression: 'request.name != "x"' }] }] });
      assert.equal(second.status, 200, second.text);
      type Stored = { metadata: { managedFields: { manager: string; fieldsV1: unknown }[] }; webhooks: { matchConditions: Condition[] }[] };
      const got = JSON.parse(second.text) as Stored;
      assert.deepEqual(got.webhooks[0].matchConditions.map((m) => m.name).sort(), ['a', 'b']);
      const owned = got.metadata.managedFields.find((f) => f.manager === 'owner-b');
      assert.match(JSON.stringify(owned?.fieldsV1), /"f:matchConditions":\{"k:\{\\"name\\":\\"b\\"\}"/);
      const smp = await c.request('PATCH', `${CONFIGS}/${name}`, { body: JSON.stringify({ webhooks: [{ name: hookName, matchConditions: [{ name: 'c', expression: 'true' }] }] }), contentType: 'application/strategic-merge-patch+json' });
      assert.equal(smp.status, 200, smp.text);
      assert.deepEqual((JSON.parse(smp.text) as Stored).webhooks[0].matchConditions.map((m) => m.name).sort(), ['a', 'b', 'c']);
    } finally {
      await unregister(name);
    }
  });

  it('serves the conditions back as written and checks them again when they change', async () => {
    const name = await register([{ name: 'always', expression: 'true' }]);
    try {
      const got = JSON.parse((await c.request('GET', `${CONFIGS}/${name}`)).text) as { webhooks: { matchConditions: Condition[] }[] };
      assert.deepEqual(got.webhooks[0].matchConditions, [{ name: 'always', expression: 'true' }]);
      const relabel = await c.request('PATCH', `${CONFIGS}/${name}`, { body: JSON.stringify({ metadata: { labels: { a: 'b' } } }), contentType: 'application/merge-patch+json' });
      assert.equal(relabel.status, 200, relabel.text);
      const changed = await c.request('PATCH', `${CONFIGS}/${name}`, { body: JSON.stringify({ webhooks: [{ ...got.webhooks[0], matchConditions: [{ name: 'always', expression: 'nope' }] }] }), contentType: 'application/merge-patch+json' });
      assert.equal(changed.status, 422, changed.text);
      assert.match(changed.text, /webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: \\"nope\\": compilation failed: /);
    } finally {
      await unregister(name);
    }
  });

  it('a stored condition that does not compile (written before validation) is an error at each evaluation, in kube-apiserver\'s words', () => {
    const compiled = compileMatchConditions([
      { name: 'broken', expression: 'nope ==' },
      { name: 'fine', expression: 'true' },
    ]);
    const result = evaluateMatchConditions(compiled, { object: null, oldObject: null, request: {} });
    assert.ok('error' in result);
    assert.match(result.error, /^compilation error: compilation failed: ERROR: <input>:1:8: /);
    // A false condition still decides.
    const skipped = evaluateMatchConditions(compileMatchConditions([{ name: 'broken', expression: 'nope ==' }, { name: 'no', expression: 'false' }]), { object: null, oldObject: null, request: {} });
    assert.deepEqual(skipped, { matches: false, expression: 'false' });
  });
});
