// CLI: node dist/test/conformance/run.js [scenario ...] [--verbose] [--url URL --token TOKEN --ca FILE] [--dump DIR] [--print-deviations]
// Replays scenarios against the embedded API server (or any server) and prints per-step results,
// with a diff for every failing step.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadKnownDeviations, scenarioNames, type KnownDeviation } from './corpus.js';
import { startEmbeddedServer } from './embedded.js';
import { evaluate, formatDifference, formatScenarioSummary, formatStep, formatTotals } from './report.js';
import { runScenarios, type ScenarioOutcome } from './suite.js';
import type { Target } from './http.js';

const USAGE = `usage: node dist/test/conformance/run.js [scenario ...] [options]
  --verbose, -v     print passing steps too
  --url URL         replay against this server instead of the embedded one
  --token TOKEN     bearer token for --url
  --ca FILE         CA bundle (PEM) for --url
  --dump DIR        write each normalized transcript to DIR/<scenario>.json
  --max-diffs N     differences shown per failing step (default 15)
  --print-deviations  print every failing step as a known-deviations.json entry`;

function parse() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      verbose: { type: 'boolean', short: 'v', default: false },
      url: { type: 'string' },
      token: { type: 'string' },
      ca: { type: 'string' },
      dump: { type: 'string' },
      'max-diffs': { type: 'string', default: '15' },
      'print-deviations': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  return { values, positionals };
}

function selectScenarios(requested: string[]): string[] {
  const all = scenarioNames();
  if (requested.length === 0) return all;
  const unknown = requested.filter((name) => !all.includes(name));
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}\navailable: ${all.join(', ')}`);
  return requested;
}

function groupByScenario(steps: Array<{ scenario: string; step: string }>): string {
  const groups = new Map<string, string[]>();
  for (const { scenario, step } of steps) groups.set(scenario, [...(groups.get(scenario) ?? []), step]);
  return [...groups].map(([scenario, ids]) => `${scenario}/{${ids.join(',')}}`).join(' ');
}

/** Failing steps in the format of known-deviations.json, each with its first difference as a draft reason. */
function deviationEntries(outcomes: ScenarioOutcome[]): KnownDeviation[] {
  return outcomes.flatMap(({ result }) =>
    result.steps
      .filter((step) => !step.passed)
      .map((step) => ({ scenario: result.name, step: step.id, reason: formatDifference(step.differences[0], '').replace(/\s*\n\s*/g, ' ').slice(0, 200) })),
  );
}

async function main(): Promise<number> {
  const { values, positionals } = parse();
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const names = selectScenarios(positionals.map((p) => p.replace(/\.json$/, '')));
  let target: Target;
  let stop = async (): Promise<void> => {};
  if (values.url) {
    if (!values.token || !values.ca) throw new Error('--url needs --token and --ca');
    target = { url: values.url, token: values.token, caPem: readFileSync(values.ca, 'utf8') };
  } else {
    const embedded = await startEmbeddedServer();
    target = embedded.target;
    stop = embedded.stop;
  }
  const maxDiffs = Number(values['max-diffs']) || 15;
  const report = (outcome: ScenarioOutcome) => {
    const lines = [`${formatScenarioSummary(outcome.result)} [${(outcome.durationMs / 1000).toFixed(1)}s]`];
    if (outcome.error) lines.push(`  ! ${outcome.error}`);
    else for (const step of outcome.result.steps) if (values.verbose || !step.passed) lines.push(...formatStep(step, maxDiffs));
    console.log(lines.join('\n'));
    if (values.dump && outcome.transcript) {
      mkdirSync(values.dump, { recursive: true });
      writeFileSync(join(values.dump, `${outcome.result.name}.json`), `${JSON.stringify(outcome.transcript, null, 2)}\n`);
    }
  };
  try {
    const outcomes = await runScenarios(target, names, report);
    const evaluation = evaluate(outcomes.map((o) => o.result), loadKnownDeviations());
    console.log('');
    for (const k of evaluation.stale) console.log(`stale known deviation (now passes): ${k.scenario}/${k.step}`);
    if (evaluation.unlisted.length > 0) console.log(`not in known-deviations.json: ${groupByScenario(evaluation.unlisted)}`);
    if (values['print-deviations']) console.log(JSON.stringify(deviationEntries(outcomes), null, 2));
    console.log(`${formatTotals(evaluation)} (${(evaluation.ratio * 100).toFixed(1)}%)`);
    return evaluation.unlisted.length === 0 ? 0 : 1;
  } finally {
    await stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
