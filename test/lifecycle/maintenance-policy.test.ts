// The maintenance-window policy in upstream's format: parsing, rule matching (any pattern, first
// matching rule, the default otherwise), absolute and weekly windows, ongoing windows with a minimum
// size, and whether a Kyma's upgrade must wait.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Labels, type KymaObject, type ModuleTemplateObject } from '../../src/api/operator/index.js';
import { MaintenancePolicyError, parseMaintenancePolicy, resolveWindow } from '../../src/lifecycle/maintenance/policy.js';
import { MaintenanceWindows, MaintenanceWindowUnknownError } from '../../src/lifecycle/maintenance/windows.js';

const now = new Date('2026-03-04T10:00:00Z'); // a Wednesday
const at = (iso: string) => new Date(iso).getTime();

describe('maintenance-window policy', () => {
  const policy = parseMaintenancePolicy(
    JSON.stringify({
      rules: [
        { match: { plan: '^trial$', region: 'never' }, windows: [{ begin: '2026-03-04T09:00:00Z', end: '2026-03-04T12:00:00Z' }] },
        { match: { globalAccountID: 'ga-1' }, windows: [{ days: ['Sat', 'Sun'], begin: '01:00:00+02:00', end: '05:00:00+02:00' }] },
        { match: { region: 'eu' }, windows: [{ begin: '2026-03-01T00:00:00Z', end: '2026-03-02T00:00:00Z' }] },
      ],
      default: { days: ['Wed'], begin: '22:00:00Z', end: '02:00:00Z' },
    }),
  );

  it('a rule matches when any of its patterns matches; absolute windows are used while they last long enough', () => {
    const w = resolveWindow(policy, { plan: 'trial' }, { now, ongoing: true, minDurationMs: 60 * 60_000 });
    assert.deepEqual([w?.begin.getTime(), w?.end.getTime()], [at('2026-03-04T09:00:00Z'), at('2026-03-04T12:00:00Z')]);
    // Too short for the minimum size: the rule gives nothing, the default's next window is used.
    const late = resolveWindow(policy, { plan: 'trial' }, { now, ongoing: true, minDurationMs: 3 * 60 * 60_000 });
    assert.deepEqual([late?.begin.getTime(), late?.end.getTime()], [at('2026-03-04T22:00:00Z'), at('2026-03-05T02:00:00Z')]);
    // Not ongoing: a window that has begun is not offered.
    assert.equal(resolveWindow(policy, { plan: 'trial' }, { now, ongoing: false, minDurationMs: 0 })?.begin.getTime(), at('2026-03-04T22:00:00Z'));
  });

  it('weekly windows step to the next listed weekday in the zone of their begin', () => {
    const w = resolveWindow(policy, { globalAccountID: 'ga-1' }, { now, ongoing: false, minDurationMs: 0 });
    // Saturday 01:00 at +02:00 is Friday 23:00 UTC.
    assert.deepEqual([w?.begin.toISOString(), w?.end.toISOString()], ['2026-03-06T23:00:00.000Z', '2026-03-07T03:00:00.000Z']);
  });

  it('the first matching rule decides; a past window falls back to the default', () => {
    const w = resolveWindow(policy, { region: 'eu', globalAccountID: 'other' }, { now, ongoing: true, minDurationMs: 0 });
    assert.equal(w?.begin.toISOString(), '2026-03-04T22:00:00.000Z');
  });

  it('an empty default gives no window', () => {
    const bare = parseMaintenancePolicy('{"rules": [], "default": {}}');
    assert.equal(resolveWindow(bare, { region: 'x' }, { now, ongoing: true, minDurationMs: 0 }), undefined);
  });

  it('malformed policies are refused naming the field', () => {
    assert.throws(() => parseMaintenancePolicy('{"rules": [{"match": {"region": "("}}]}', 'p.json'), (e: unknown) => e instanceof MaintenancePolicyError && e.message.startsWith('p.json: rules[0].match.region'));
    assert.throws(() => parseMaintenancePolicy('{"default": {"begin": "tomorrow"}}'), (e: unknown) => e instanceof MaintenancePolicyError && e.message.includes('default.begin'));
    assert.throws(() => parseMaintenancePolicy('[]'), MaintenancePolicyError);
  });

  it('an upgrade waits only when the template requires downtime, the Kyma does not skip windows and another version is installed', () => {
    const windows = new MaintenanceWindows(policy, 0, () => now);
    const template = { spec: { requiresDowntime: true } } as ModuleTemplateObject;
    const kyma = (labels: Record<string, string>, skip = false) => ({ metadata: { labels }, spec: { skipMaintenanceWindows: skip } }) as unknown as KymaObject;
    assert.equal(windows.isRequired(template, '2.0.0', kyma({}), '1.0.0'), true);
    assert.equal(windows.isRequired(template, '2.0.0', kyma({}), undefined), false, 'initial installation');
    assert.equal(windows.isRequired(template, '2.0.0', kyma({}), '2.0.0'), false, 'already installed');
    assert.equal(windows.isRequired(template, '2.0.0', kyma({}, true), '1.0.0'), false, 'skipMaintenanceWindows');
    assert.equal(windows.isRequired({ spec: {} } as ModuleTemplateObject, '2.0.0', kyma({}), '1.0.0'), false, 'no downtime');
    assert.equal(windows.isActive(kyma({ [Labels.Plan]: 'trial' })), true);
    assert.equal(windows.isActive(kyma({ [Labels.GlobalAccountID]: 'ga-1' })), false);
    assert.throws(() => new MaintenanceWindows(undefined).isActive(kyma({})), (e: unknown) => e instanceof MaintenanceWindowUnknownError && e.message === 'failed to determine if maintenance window is active: no maintenance window policy configured');
  });
});
