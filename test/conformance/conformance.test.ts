// Replays every scenario of the corpus against the embedded API server and holds it to the
// golden transcripts: at least 98% of steps must agree, and every failing step must be listed
// in known-deviations.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKnownDeviations, scenarioNames } from './corpus.js';
import { EmbeddedServerMissing, startEmbeddedServer, type EmbeddedTarget } from './embedded.js';
import { evaluate, formatScenarioSummary, formatStep, formatTotals } from './report.js';
import { runScenarios } from './suite.js';

const REQUIRED_RATIO = 0.98;

async function start(): Promise<EmbeddedTarget | string> {
  try {
    return await startEmbeddedServer();
  } catch (err) {
    if (err instanceof EmbeddedServerMissing) return err.message;
    throw err;
  }
}

test('the embedded API server answers like kube-apiserver v1.24', { timeout: 15 * 60_000 }, async (t) => {
  const server = await start();
  if (typeof server === 'string') {
    t.skip(`embedded API server unavailable: ${server}`);
    return;
  }
  try {
    const outcomes = await runScenarios(server.target, scenarioNames(), (outcome) => {
      const lines = [formatScenarioSummary(outcome.result)];
      for (const step of outcome.result.steps) if (!step.passed) lines.push(...formatStep(step, 5));
      console.log(lines.join('\n'));
    });
    const evaluation = evaluate(outcomes.map((o) => o.result), loadKnownDeviations());
    for (const k of evaluation.stale) console.log(`stale known deviation (now passes): ${k.scenario}/${k.step} (${k.reason})`);
    console.log(`${formatTotals(evaluation)} (${(evaluation.ratio * 100).toFixed(1)}%)`);
    assert.ok(
      evaluation.ratio >= REQUIRED_RATIO,
      `only ${(evaluation.ratio * 100).toFixed(1)}% of steps agree (need ${REQUIRED_RATIO * 100}%)`,
    );
    assert.deepEqual(
      evaluation.unlisted.map((u) => `${u.scenario}/${u.step}`),
      [],
      'failing steps missing from test/conformance/known-deviations.json',
    );
  } finally {
    await server.stop();
  }
});
