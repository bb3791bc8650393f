import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from '../../src/util/prometheus.js';

const lines = (text: string, name: string): string[] => text.split('\n').filter((l) => l.startsWith(`${name}{`));

describe('prometheus registry', () => {
  it('a state gauge renders 1 for the current state and 0 for the others, in the label order given, one entry per object', () => {
    const registry = new Registry();
    const g = registry.stateGauge({ name: 'demo_state', help: 'h', labelNames: ['module', 'state', 'kyma'], stateLabel: 'state', states: ['Ready', 'Error'] });
    g.set({ module: 'a', kyma: 'k1' }, 'Error');
    g.set({ module: 'b', kyma: 'k1' }, 'Ready');
    g.set({ module: 'a', kyma: 'k1' }, 'Ready'); // moves, no second object
    g.set({ module: 'c', kyma: 'k"2' }, ''); // no state of the set: 0 for all
    assert.deepEqual(lines(registry.render(), 'demo_state'), [
      'demo_state{module="a",state="Ready",kyma="k1"} 1',
      'demo_state{module="a",state="Error",kyma="k1"} 0',
      'demo_state{module="b",state="Ready",kyma="k1"} 1',
      'demo_state{module="b",state="Error",kyma="k1"} 0',
      'demo_state{module="c",state="Ready",kyma="k\\"2"} 0',
      'demo_state{module="c",state="Error",kyma="k\\"2"} 0',
    ]);
    assert.equal(g.get({ module: 'a', kyma: 'k1', state: 'Ready' }), 1);
    assert.equal(g.get({ module: 'a', kyma: 'k1', state: 'Error' }), 0);
    g.remove({ module: 'a', kyma: 'k1' });
    assert.equal(lines(registry.render(), 'demo_state').filter((l) => l.includes('module="a"')).length, 0);
    assert.equal(lines(registry.render(), 'demo_state').length, 4);
  });

  it('a name registered as one kind cannot be registered as another; the same kind returns the first', () => {
    const registry = new Registry();
    const g = registry.gauge({ name: 'x', help: 'h', labelNames: ['state'] });
    assert.equal(registry.gauge({ name: 'x', help: 'h' }), g);
    assert.throws(() => registry.stateGauge({ name: 'x', help: 'h', labelNames: ['state'], stateLabel: 'state', states: ['A'] }), /already registered as a Gauge/);
    assert.throws(() => registry.counter({ name: 'x', help: 'h' }), /already registered as a Gauge/);
    assert.throws(() => registry.stateGauge({ name: 'y', help: 'h', labelNames: ['a'], stateLabel: 'state', states: ['A'] }), /state label state is not among its labels/);
  });

  it('renders only the metrics named when asked', () => {
    const registry = new Registry();
    registry.counter({ name: 'one_total', help: 'h' }).inc();
    registry.counter({ name: 'two_total', help: 'h' }).inc(undefined, 2);
    const text = registry.render(['two_total', 'absent']);
    assert.match(text, /^two_total 2$/m);
    assert.doesNotMatch(text, /one_total/);
    assert.match(registry.render(), /^one_total 1$/m);
  });
});
