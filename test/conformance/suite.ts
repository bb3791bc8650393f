// Replays scenarios one after another (they share cluster-wide objects such as CRDs) and compares
// each with its golden transcript.
import { compareTranscripts, type ScenarioResult } from './compare.js';
import { loadGolden, loadScenario } from './corpus.js';
import { replayScenario, type Target } from './replay.js';
import type { Transcript } from './types.js';

export interface ScenarioOutcome {
  result: ScenarioResult;
  transcript?: Transcript;
  /** Why the scenario could not be replayed at all. */
  error?: string;
  durationMs: number;
}

export async function runScenario(target: Target, name: string): Promise<ScenarioOutcome> {
  const golden = loadGolden(name);
  const started = Date.now();
  try {
    const transcript = await replayScenario(target, loadScenario(name));
    return { result: compareTranscripts(golden, transcript), transcript, durationMs: Date.now() - started };
  } catch (err) {
    const error = (err as Error).message;
    const steps = golden.steps.map((step, index) => ({
      index,
      id: step.id,
      passed: false,
      differences: [{ path: '', note: `scenario aborted: ${error}` }],
    }));
    return { result: { name, steps, passed: 0, failed: steps.length }, error, durationMs: Date.now() - started };
  }
}

export async function runScenarios(
  target: Target,
  names: string[],
  onOutcome?: (outcome: ScenarioOutcome) => void,
): Promise<ScenarioOutcome[]> {
  const outcomes: ScenarioOutcome[] = [];
  for (const name of names) {
    const outcome = await runScenario(target, name);
    onOutcome?.(outcome);
    outcomes.push(outcome);
  }
  return outcomes;
}
