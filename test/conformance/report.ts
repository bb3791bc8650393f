// Scoring and human-readable output of comparison results.
import type { KnownDeviation } from './corpus.js';
import type { Difference, ScenarioResult, StepResult } from './compare.js';
import type { JsonValue } from './types.js';

export interface Evaluation {
  passed: number;
  failed: number;
  /** Passed steps over all steps (1 when there are none). */
  ratio: number;
  /** Failing steps not listed in known-deviations.json. */
  unlisted: Array<{ scenario: string; step: string }>;
  /** Listed deviations whose step now passes (or no longer exists). */
  stale: KnownDeviation[];
}

export function evaluate(results: ScenarioResult[], known: KnownDeviation[]): Evaluation {
  const listed = new Set(known.map((k) => `${k.scenario}/${k.step}`));
  const failing = new Set<string>();
  const unlisted: Evaluation['unlisted'] = [];
  let passed = 0;
  let failed = 0;
  for (const result of results) {
    passed += result.passed;
    failed += result.failed;
    for (const step of result.steps) {
      if (step.passed) continue;
      failing.add(`${result.name}/${step.id}`);
      if (!listed.has(`${result.name}/${step.id}`)) unlisted.push({ scenario: result.name, step: step.id });
    }
  }
  const ran = new Set(results.map((r) => r.name));
  const stale = known.filter((k) => ran.has(k.scenario) && !failing.has(`${k.scenario}/${k.step}`));
  const total = passed + failed;
  return { passed, failed, ratio: total === 0 ? 1 : passed / total, unlisted, stale };
}

/** Compact JSON, cut in the middle when long. */
export function formatValue(value: JsonValue | undefined, max = 400): string {
  if (value === undefined) return '(absent)';
  const text = JSON.stringify(value);
  return text.length <= max ? text : `${text.slice(0, max - 40)} …(${text.length} chars)… ${text.slice(-30)}`;
}

export function formatDifference(d: Difference, indent = '      '): string {
  const where = d.path === '' ? '(step)' : d.path;
  if (d.note === 'missing') return `${indent}${where}: missing, expected ${formatValue(d.expected)}`;
  if (d.note === 'not expected') return `${indent}${where}: not expected, got ${formatValue(d.actual)}`;
  if (d.expected === undefined && d.actual === undefined) return `${indent}${where}: ${d.note ?? 'differs'}`;
  if (d.note !== undefined) return `${indent}${where}: ${d.note}`;
  const expected = formatValue(d.expected);
  const actual = formatValue(d.actual);
  if (expected.length + actual.length < 100) return `${indent}${where}: expected ${expected}, got ${actual}`;
  return `${indent}${where}:\n${indent}  expected ${expected}\n${indent}  got      ${actual}`;
}

export function formatStep(step: StepResult, maxDifferences = 15): string[] {
  if (step.passed) return [`  ✓ ${step.id}`];
  const lines = [`  ✗ ${step.id}`];
  for (const d of step.differences.slice(0, maxDifferences)) lines.push(formatDifference(d));
  const more = step.differences.length - maxDifferences;
  if (more > 0) lines.push(`      … and ${more} more difference${more === 1 ? '' : 's'}`);
  return lines;
}

export function formatScenarioSummary(result: ScenarioResult): string {
  const failing = result.steps.filter((s) => !s.passed).map((s) => s.id);
  const status = failing.length === 0 ? 'ok' : `FAIL (${failing.join(', ')})`;
  return `${result.name}: ${result.passed}/${result.steps.length} steps agree — ${status}`;
}

export function formatTotals(evaluation: Evaluation): string {
  return `conformance: ${evaluation.passed} passed, ${evaluation.failed} failed`;
}
