// Step-by-step comparison of a normalized transcript with its golden one (README "Comparing"):
// deep equality, where symbols (uid#N, rv#N) must correspond one-to-one across the whole scenario
// instead of carrying the same number. Key order is ignored except inside custom resources, which
// kube-apiserver encodes with sorted keys: there it must match the golden order (stricter than the
// corpus README asks, because clients can see it).
import { isPlainObject } from '../../src/kube/json.js';
import type { JsonValue, Transcript, TranscriptStep } from './types.js';

export interface Difference {
  /** Where in the step, e.g. `response.body.metadata.name`. */
  path: string;
  expected?: JsonValue;
  actual?: JsonValue;
  /** Why equal-looking values differ (symbol correspondence), or what is missing. */
  note?: string;
}

export interface StepResult {
  index: number;
  id: string;
  passed: boolean;
  differences: Difference[];
}

export interface ScenarioResult {
  name: string;
  steps: StepResult[];
  passed: number;
  failed: number;
}

const SYMBOL_SPLIT = /((?:uid|rv)#\d+)/;

/** The golden ↔ actual symbol pairs agreed so far; a step's new pairs are kept only when it passes. */
export class SymbolCorrespondence {
  private readonly forward = new Map<string, string>();
  private readonly backward = new Map<string, string>();

  constructor(private readonly parent?: SymbolCorrespondence) {}

  private lookupForward(golden: string): string | undefined {
    return this.forward.get(golden) ?? this.parent?.lookupForward(golden);
  }

  private lookupBackward(actual: string): string | undefined {
    return this.backward.get(actual) ?? this.parent?.lookupBackward(actual);
  }

  /** Pairs two symbols, or explains why they cannot be paired. */
  match(golden: string, actual: string): string | undefined {
    if (symbolKind(golden) !== symbolKind(actual)) return `expected ${golden}, got ${actual}`;
    const bound = this.lookupForward(golden);
    if (bound !== undefined) {
      return bound === actual ? undefined : `expected ${golden} (= actual ${bound} elsewhere in the scenario), got ${actual}`;
    }
    const owner = this.lookupBackward(actual);
    if (owner !== undefined) return `expected ${golden} (a new value), got ${actual}, which stands for golden ${owner} elsewhere`;
    this.forward.set(golden, actual);
    this.backward.set(actual, golden);
    return undefined;
  }

  /** A child whose pairs can be committed into this one or dropped. */
  child(): SymbolCorrespondence {
    return new SymbolCorrespondence(this);
  }

  commitToParent(): void {
    if (!this.parent) return;
    for (const [g, a] of this.forward) {
      this.parent.forward.set(g, a);
      this.parent.backward.set(a, g);
    }
  }
}

function symbolKind(symbol: string): string {
  return symbol.slice(0, symbol.indexOf('#'));
}

/** Compares two strings whose symbols must correspond; returns a note when they do not. */
function compareText(golden: string, actual: string, symbols: SymbolCorrespondence): string | undefined | false {
  if (!golden.includes('#') && !actual.includes('#')) return golden === actual ? undefined : false;
  const g = golden.split(SYMBOL_SPLIT);
  const a = actual.split(SYMBOL_SPLIT);
  if (g.length !== a.length) return false;
  for (let i = 0; i < g.length; i += 2) if (g[i] !== a[i]) return false;
  for (let i = 1; i < g.length; i += 2) {
    const problem = symbols.match(g[i], a[i]);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function keyShape(key: string): string {
  return key.replace(/(uid|rv)#\d+/g, '$1#');
}

/** Pairs object keys: exact names first, then keys that differ only in their symbols. */
function pairKeys(golden: string[], actual: string[], symbols: SymbolCorrespondence): { pairs: Array<[string, string]>; missing: string[]; extra: string[] } {
  const actualLeft = new Set(actual);
  const pairs: Array<[string, string]> = [];
  const unpaired: string[] = [];
  for (const key of golden) {
    if (actualLeft.has(key) && !SYMBOL_SPLIT.test(key)) {
      pairs.push([key, key]);
      actualLeft.delete(key);
    } else unpaired.push(key);
  }
  const missing: string[] = [];
  for (const key of unpaired) {
    const shape = keyShape(key);
    const candidates = [...actualLeft].filter((k) => keyShape(k) === shape);
    // With several keys of one shape (two ownerReferences), prefer the one whose symbols correspond.
    const candidate = candidates.find((k) => compareText(key, k, symbols.child()) === undefined) ?? candidates[0];
    if (candidate === undefined) missing.push(key);
    else {
      pairs.push([key, candidate]);
      actualLeft.delete(candidate);
    }
  }
  return { pairs, missing, extra: [...actualLeft] };
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function present(obj: Record<string, unknown>): string[] {
  return Object.keys(obj).filter((k) => obj[k] !== undefined);
}

/**
 * A custom resource (or a list of them): `apiVersion` names an API group outside Kubernetes' own
 * (`*.k8s.io` and the groups without a dot), and the object has `kind` and `metadata`.
 */
function isCustomResource(v: Record<string, unknown>): boolean {
  if (typeof v.apiVersion !== 'string' || typeof v.kind !== 'string' || !isPlainObject(v.metadata)) return false;
  const slash = v.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : v.apiVersion.slice(0, slash);
  return group.includes('.') && !group.endsWith('.k8s.io');
}

/**
 * The keys both objects have, in golden order and in actual order; keys with symbols are left out
 * (the real server sorted them by the real uids, which normalization replaced).
 */
function keyOrderDifference(golden: string[], actual: string[]): Difference['note'] {
  const plain = (k: string) => !SYMBOL_SPLIT.test(k);
  const inActual = new Set(actual);
  const inGolden = new Set(golden);
  const g = golden.filter((k) => plain(k) && inActual.has(k));
  const a = actual.filter((k) => plain(k) && inGolden.has(k));
  if (g.every((k, i) => a[i] === k)) return undefined;
  return `key order: expected ${g.join(', ')}; got ${a.join(', ')}`;
}

/** Collects the differences between two JSON values; `ordered`: object key order must match too. */
export function diffValues(
  golden: JsonValue | undefined,
  actual: JsonValue | undefined,
  path: string,
  symbols: SymbolCorrespondence,
  out: Difference[],
  ordered = false,
): void {
  if (golden === undefined || actual === undefined) {
    if (golden !== actual) {
      out.push({ path, expected: golden, actual, note: golden === undefined ? 'not expected' : 'missing' });
    }
    return;
  }
  if (typeof golden === 'string' && typeof actual === 'string') {
    const problem = compareText(golden, actual, symbols);
    if (problem === false) out.push({ path, expected: golden, actual });
    else if (problem !== undefined) out.push({ path, expected: golden, actual, note: problem });
    return;
  }
  if (Array.isArray(golden) && Array.isArray(actual)) {
    const common = Math.min(golden.length, actual.length);
    for (let i = 0; i < common; i++) diffValues(golden[i], actual[i], `${path}[${i}]`, symbols, out, ordered);
    for (let i = common; i < golden.length; i++) out.push({ path: `${path}[${i}]`, expected: golden[i], note: 'missing' });
    for (let i = common; i < actual.length; i++) out.push({ path: `${path}[${i}]`, actual: actual[i], note: 'not expected' });
    return;
  }
  if (isPlainObject(golden) && isPlainObject(actual)) {
    const goldenKeys = present(golden);
    const actualKeys = present(actual);
    ordered ||= isCustomResource(golden);
    if (ordered) {
      const note = keyOrderDifference(goldenKeys, actualKeys);
      if (note !== undefined) out.push({ path, note });
    }
    const { pairs, missing, extra } = pairKeys(goldenKeys, actualKeys, symbols);
    for (const [g, a] of pairs) {
      if (g !== a) {
        const problem = compareText(g, a, symbols);
        if (problem !== undefined) out.push({ path: childPath(path, g), note: `key ${JSON.stringify(a)}: ${problem || 'differs'}` });
      }
      diffValues(golden[g] as JsonValue, actual[a] as JsonValue, childPath(path, g), symbols, out, ordered);
    }
    for (const key of missing) out.push({ path: childPath(path, key), expected: golden[key] as JsonValue, note: 'missing' });
    for (const key of extra) out.push({ path: childPath(path, key), actual: actual[key] as JsonValue, note: 'not expected' });
    return;
  }
  if (golden !== actual) out.push({ path, expected: golden, actual });
}

/** What a step is judged on: the response, the watch status, the events or the reviews. */
function comparedPart(step: TranscriptStep): { kind: string; value: JsonValue } {
  if ('response' in step) return { kind: 'request', value: { response: step.response as unknown as JsonValue } };
  if ('events' in step) return { kind: 'collect', value: { events: step.events as unknown as JsonValue } };
  if ('reviews' in step) return { kind: 'reviews', value: { reviews: step.reviews as unknown as JsonValue } };
  return { kind: 'watch', value: { status: step.status } };
}

export function compareStep(golden: TranscriptStep, actual: TranscriptStep | undefined, symbols: SymbolCorrespondence): Difference[] {
  if (!actual) return [{ path: '', note: 'step was not recorded' }];
  if (actual.id !== golden.id) return [{ path: '', note: `expected step "${golden.id}", got step "${actual.id}"` }];
  const g = comparedPart(golden);
  const a = comparedPart(actual);
  if (g.kind !== a.kind) return [{ path: '', note: `expected a ${g.kind} step, got a ${a.kind} step` }];
  const differences: Difference[] = [];
  diffValues(g.value, a.value, '', symbols, differences);
  return differences.map((d) => ({ ...d, path: d.path.replace(/^\./, '') }));
}

export function compareTranscripts(golden: Transcript, actual: Transcript): ScenarioResult {
  const symbols = new SymbolCorrespondence();
  const steps = golden.steps.map((goldenStep, index): StepResult => {
    const attempt = symbols.child();
    const differences = compareStep(goldenStep, actual.steps[index], attempt);
    if (differences.length === 0) attempt.commitToParent();
    return { index, id: goldenStep.id, passed: differences.length === 0, differences };
  });
  for (let index = golden.steps.length; index < actual.steps.length; index++) {
    steps.push({ index, id: actual.steps[index].id, passed: false, differences: [{ path: '', note: 'step not in the golden transcript' }] });
  }
  const passed = steps.filter((s) => s.passed).length;
  return { name: golden.name, steps, passed, failed: steps.length - passed };
}
