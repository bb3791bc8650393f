// The pieces of the CLI for people that need no control plane: output formats, tables, progress lines,
// finding the KCP kubeconfig, and the Runtime a `kcp runtime create` builds for every provider and region.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { runtimeProviderTypes, validateRuntime, zoneBelongsToRegion } from '../../src/api/infrastructuremanager/index.js';
import { parseArgs, UsageError } from '../../src/cli/args.js';
import { kcpKubeconfigPath } from '../../src/cli/connect.js';
import { age, renderTable, takeOutputFormat } from '../../src/cli/output.js';
import { waitWithProgress } from '../../src/cli/progress.js';
import { buildRuntimeAndKyma, providerProfiles, validateRuntimeRequest } from '../../src/cli/runtime-spec.js';
import { zonePattern } from '../../src/landscape/gardener/options.js';

describe('CLI output', () => {
  it('-o json, -oyaml, -o=json and --output pick the format and leave the other arguments', () => {
    assert.deepEqual(takeOutputFormat(parseArgs(['list', '-o', 'json'])), { format: 'json', positionals: ['list'] });
    assert.deepEqual(takeOutputFormat(parseArgs(['-oyaml', 'list'])), { format: 'yaml', positionals: ['list'] });
    assert.deepEqual(takeOutputFormat(parseArgs(['list', '-o=json'])), { format: 'json', positionals: ['list'] });
    assert.deepEqual(takeOutputFormat(parseArgs(['list', '--output', 'yaml'])), { format: 'yaml', positionals: ['list'] });
    assert.equal(takeOutputFormat(parseArgs(['list'])).format, 'table');
    assert.throws(() => takeOutputFormat(parseArgs(['list', '-o', 'xml'])), (e: unknown) => e instanceof UsageError && /unknown output format "xml"/.test(e.message));
  });

  it('tables align columns like kubectl and ages read like kubectl', () => {
    assert.equal(renderTable(['NAME', 'STATE'], [['r1', 'Ready'], ['long-name', 'Pending']]), 'NAME        STATE\nr1          Ready\nlong-name   Pending\n');
    const now = Date.parse('2026-01-02T00:00:00Z');
    assert.equal(age('2026-01-01T23:59:15Z', now), '45s');
    assert.equal(age('2026-01-01T23:00:00Z', now), '60m');
    assert.equal(age('2026-01-01T00:00:00Z', now), '24h');
    assert.equal(age('2025-12-20T00:00:00Z', now), '13d');
  });

  it('progress prints a line per change when not on a terminal and rewrites one line on a terminal', async () => {
    const states = ['Pending', 'Pending', 'Processing', 'Ready'];
    const run = async (interactive: boolean) => {
      let err = '';
      let i = 0;
      await waitWithProgress({
        what: 'x',
        output: { out: () => undefined, err: (t) => void (err += t), interactive },
        timeoutMs: 5_000,
        pollMs: 1,
        observe: () => {
          const s = states[i++];
          return Promise.resolve({ status: `state ${s}`, done: s === 'Ready' });
        },
      });
      return err;
    };
    assert.deepEqual((await run(false)).trim().split('\n').map((l) => l.replace(/ \(\d+s\)$/, '')), ['state Pending', 'state Processing', 'state Ready']);
    const tty = await run(true);
    assert.equal(tty.split('\n').length, 2, 'one line, ended once');
    assert.ok(tty.endsWith('\r\u001b[Kstate Ready (0s)\n'), JSON.stringify(tty));
  });

  it('a failed or timed-out wait is an error saying why', async () => {
    const output = { out: () => undefined, err: () => undefined };
    await assert.rejects(waitWithProgress({ what: 'x', output, timeoutMs: 5_000, pollMs: 1, observe: () => Promise.resolve({ status: 'Failed', failed: 'runtime r1 failed: quota exceeded' }) }), /runtime r1 failed: quota exceeded/);
    await assert.rejects(waitWithProgress({ what: 'runtime r1 to become Ready', output, timeoutMs: 20, pollMs: 5, observe: () => Promise.resolve({ status: 'Pending' }) }), /timed out after 0s waiting for runtime r1 to become Ready \(last: Pending\)/);
  });

  it('the KCP kubeconfig comes from --kubeconfig, else --data-dir, else $KUBECONFIG, else .kcp', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kcp-connect-'));
    try {
      const envFile = join(dir, 'env.kubeconfig');
      writeFileSync(envFile, 'x');
      const env = { KUBECONFIG: `${join(dir, 'missing')}:${envFile}` };
      assert.equal(kcpKubeconfigPath(parseArgs(['--kubeconfig', 'a.yaml']), env), resolve('a.yaml'));
      assert.equal(kcpKubeconfigPath(parseArgs(['--data-dir', 'd']), env), resolve('d/kcp.kubeconfig'));
      assert.equal(kcpKubeconfigPath(parseArgs([]), env), envFile);
      assert.equal(kcpKubeconfigPath(parseArgs([]), {}), resolve('.kcp/kcp.kubeconfig'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('runtime create builds what the broker would', () => {
  it('every known region of every provider gives a valid Runtime whose zones the Gardener simulator accepts', () => {
    for (const provider of runtimeProviderTypes) {
      for (const region of providerProfiles[provider].regions) {
        const req = validateRuntimeRequest({ name: 'r1', provider, region, administrators: ['a@example.com'], minimum: 3, maximum: 20, purpose: 'production', platformRegion: 'cf-eu10', globalAccountID: 'ga', subaccountID: 'sa', channel: 'regular' });
        const { runtime, kyma } = buildRuntimeAndKyma(req, 'kcp-system');
        assert.deepEqual(validateRuntime(runtime), [], `${provider} ${region}`);
        const zones = runtime.spec.shoot.provider.workers[0].zones ?? [];
        assert.equal(zones.length, 3);
        for (const z of zones) {
          assert.ok(zoneBelongsToRegion(provider, region, z), `${provider} zone ${z} of ${region}`);
          assert.match(z, zonePattern(provider, region) ?? /./, `simulator accepts ${provider} zone ${z}`);
        }
        assert.deepEqual(kyma.metadata.labels?.['kyma-project.io/runtime-id'], 'r1');
        assert.match(runtime.spec.shoot.name, /^c-[a-z0-9]{7}$/);
      }
    }
  });

  it('a worker pool never spreads over more zones than its maximum', () => {
    const req = validateRuntimeRequest({ name: 'r1', provider: 'aws', region: 'eu-central-1', administrators: ['a@example.com'], minimum: 1, maximum: 1, purpose: 'evaluation', platformRegion: 'cf-eu10', globalAccountID: 'ga', subaccountID: 'sa', channel: 'regular' });
    assert.deepEqual(buildRuntimeAndKyma(req, 'kcp-system').runtime.spec.shoot.provider.workers[0].zones, ['eu-central-1a']);
  });
});
