// Replays every scenario of the corpus against the embedded API server and holds it to the
// golden transcripts: at least 98% of steps must agree, and every failing step must be listed
// in known-deviations.json. It never skips itself: a server that cannot be loaded or started, or a
// corpus that is missing or empty, fails it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusDir, loadKnownDeviations, scenarioNames } from './corpus.js';
import { startEmbeddedServer } from './embedded.js';
import { evaluate, formatScenarioSummary, formatStep, formatTotals } from './report.js';
import { runScenarios } from './suite.js';

const REQUIRED_RATIO = 0.98;

test('the embedded API server answers like kube-apiserver v1.24', { timeout: 15 * 60_000 }, async () => {
  // A missing corpus folder throws here; an empty one fails the assertion.
  const names = scenarioNames();
  assert.ok(names.length > 0, `no scenarios in ${corpusDir()}/scenarios`);
  // Whatever keeps the embedded server from loading or starting fails the test (it used to skip).
  const server = await startEmbeddedServer();
  try {
    const outcomes = await runScenarios(server.target, names, (outcome) => {
      const lines = [formatScenarioSummary(outcome.result)];
      for (const step of outcome.result.steps) if (!step.passed) lines.push(...formatStep(step, 5));
      console.log(lines.join('\n'));
    });
    const evaluation = evaluate(outcomes.map((o) => o.result), loadKnownDeviations());
    for (const k of evaluation.stale) console.log(`stale known deviation (now passes): ${k.scenario}/${k.step} (${k.reason})`);
    console.log(`${formatTotals(evaluation)} (${(evaluation.ratio * 100).toFixed(1)}%)`);
    assert.equal(outcomes.length, names.length, 'every scenario was replayed');
    assert.ok(evaluation.passed + evaluation.failed > 0, 'the scenarios have steps (a ratio over no steps proves nothing)');
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
