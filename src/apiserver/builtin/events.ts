// Events (core v1 and events.k8s.io/v1, two views of one object) and coordination.k8s.io Leases.
import { fieldErrors, type FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asObj, asStr, ensureObj, setDefault, type Obj } from './json.js';
import { NAMESPACED_SUBDOMAIN, type KindBehaviour } from './kinds.js';
import { validateObjectMeta, validateObjectMetaUpdate, type MetaRules } from './meta.js';
import { isDns1123Subdomain, isQualifiedName } from './names.js';

// Core v1 Events only get the generic registry's path-segment name check.
const CORE_EVENT_META: MetaRules = { name: 'pathSegment', namespaced: true, kubeFinalizers: true };

/** events.k8s.io/v1 field → core v1 field (the rest share names). */
const TO_CORE: Record<string, string> = {
  regarding: 'involvedObject',
  note: 'message',
  reportingController: 'reportingComponent',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
};
const FROM_CORE: Record<string, string> = Object.fromEntries(Object.entries(TO_CORE).map(([k, v]) => [v, k]));

function renamed(obj: ObjectWithMeta, names: Record<string, string>, apiVersion: string): ObjectWithMeta {
  const out: ObjectWithMeta = { kind: 'Event', apiVersion, metadata: obj.metadata };
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'kind' || k === 'apiVersion' || k === 'metadata') continue;
    out[names[k] ?? k] = v;
  }
  return out;
}

/** Fields that Go always serializes for core v1 Events (structs and non-omitempty strings). */
export function fillCoreEvent(obj: ObjectWithMeta): void {
  setDefault(obj, 'involvedObject', {});
  setDefault(obj, 'source', {});
  setDefault(obj, 'firstTimestamp', null);
  setDefault(obj, 'lastTimestamp', null);
  setDefault(obj, 'eventTime', null);
  if (obj.reportingComponent === undefined) obj.reportingComponent = '';
  if (obj.reportingInstance === undefined) obj.reportingInstance = '';
}

/** The same for events.k8s.io/v1. */
export function fillEventsV1Event(obj: ObjectWithMeta): void {
  setDefault(obj, 'eventTime', null);
  setDefault(obj, 'regarding', {});
  setDefault(obj, 'deprecatedSource', {});
  setDefault(obj, 'deprecatedFirstTimestamp', null);
  setDefault(obj, 'deprecatedLastTimestamp', null);
}

/** An events.k8s.io/v1 Event as core v1 serves it. */
export function eventToCore(obj: ObjectWithMeta): ObjectWithMeta {
  const out = renamed(obj, TO_CORE, 'v1');
  fillCoreEvent(out);
  return out;
}

/** A core v1 Event as events.k8s.io/v1 serves it (empty reporting fields are omitted there). */
export function eventFromCore(obj: ObjectWithMeta): ObjectWithMeta {
  const out = renamed(obj, FROM_CORE, 'events.k8s.io/v1');
  if (out.reportingController === '') delete out.reportingController;
  if (out.reportingInstance === '') delete out.reportingInstance;
  fillEventsV1Event(out);
  return out;
}

function tooMany(field: string, max: number): FieldError {
  return fieldErrors.invalid(field, '', `can have at most ${max} characters`);
}

/** legacyValidateEvent on the core view; `strictNames` is for events.k8s.io requests. */
function legacyValidate(core: ObjectWithMeta, eventsApi: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ns = asStr(core.metadata.namespace);
  const involvedNs = asStr(asObj(core.involvedObject)?.namespace);
  const hasEventTime = typeof core.eventTime === 'string' && core.eventTime !== '';
  if (!hasEventTime) {
    if (!involvedNs ? ns !== '' && ns !== 'default' : ns !== involvedNs) errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  } else {
    if (!involvedNs && ns !== 'default' && ns !== 'kube-system') errs.push(fieldErrors.invalid('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
    const controllerField = eventsApi ? 'reportingController' : 'reportingComponent';
    const controller = asStr(core.reportingComponent);
    if (!controller) errs.push(fieldErrors.required(controllerField));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErrors.invalid(controllerField, controller, msg));
    const instance = asStr(core.reportingInstance);
    if (!instance) errs.push(fieldErrors.required('reportingInstance'));
    if (instance.length > 128) errs.push(tooMany('reportingInstance', 128));
    const action = asStr(core.action);
    if (!action) errs.push(fieldErrors.required('action'));
    if (action.length > 128) errs.push(tooMany('action', 128));
    const reason = asStr(core.reason);
    if (!reason) errs.push(fieldErrors.required('reason'));
    if (reason.length > 128) errs.push(tooMany('reason', 128));
    if (asStr(core.message).length > 1024) errs.push(tooMany('message', 1024));
  }
  for (const msg of isDns1123Subdomain(ns)) errs.push(fieldErrors.invalid('namespace', ns, msg));
  return errs;
}

function validateSeries(core: ObjectWithMeta): FieldError[] {
  const series = asObj(core.series);
  if (!series) return [];
  const errs: FieldError[] = [];
  const count = typeof series.count === 'number' ? series.count : 0;
  if (count < 2) errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!series.lastObservedTime) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

/** ValidateEventCreate for events.k8s.io/v1, which adds the strict checks (with its odd wording). */
function validateEventsV1Create(obj: ObjectWithMeta): FieldError[] {
  const core = eventToCore(obj);
  const errs = legacyValidate(core, true);
  errs.push(...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN));
  errs.push(...validateSeries(core));
  if (!core.eventTime) errs.push(fieldErrors.required('eventTime'));
  const type = asStr(core.type);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (core.firstTimestamp) errs.push(fieldErrors.invalid('deprecatedFirstTimestamp', '', 'needs to be unset'));
  if (core.lastTimestamp) errs.push(fieldErrors.invalid('deprecatedLastTimestamp', '', 'needs to be unset'));
  if (typeof core.count === 'number' && core.count !== 0) errs.push(fieldErrors.invalid('deprecatedCount', '', 'needs to be unset'));
  const source = asObj(core.source);
  if (asStr(source?.component) || asStr(source?.host)) errs.push(fieldErrors.invalid('deprecatedSource', '', 'needs to be unset'));
  return errs;
}

function validateEventsV1Update(obj: ObjectWithMeta, old: ObjectWithMeta): FieldError[] {
  const core = eventToCore(obj);
  const oldCore = eventToCore(old);
  const errs = legacyValidate(core, true);
  errs.push(...validateObjectMetaUpdate(obj, old));
  if (JSON.stringify(core.series) !== JSON.stringify(oldCore.series)) errs.push(...validateSeries(core));
  for (const key of ['reason', 'message', 'type', 'action', 'reportingComponent', 'reportingInstance']) {
    if (asStr(core[key]) !== asStr(oldCore[key])) errs.push(fieldErrors.invalid(key, asStr(core[key]), 'field is immutable'));
  }
  return errs;
}

export const coreEvent: KindBehaviour = {
  meta: CORE_EVENT_META,
  defaults: fillCoreEvent,
  validate: (obj) => legacyValidate(obj, false),
};

// No defaults: the events.k8s.io view's empty fields come from converting the stored core Event
// on the way out (eventFromCore), so no writer owns them.
export const eventsV1Event: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  validate: (obj, old) => (old ? validateEventsV1Update(obj, old) : validateEventsV1Create(obj)),
};

function validateLeaseSpec(spec: Obj): FieldError[] {
  const errs: FieldError[] = [];
  if (typeof spec.leaseDurationSeconds === 'number' && spec.leaseDurationSeconds <= 0) {
    errs.push(fieldErrors.invalid('spec.leaseDurationSeconds', spec.leaseDurationSeconds, 'must be greater than 0'));
  }
  if (typeof spec.leaseTransitions === 'number' && spec.leaseTransitions < 0) {
    errs.push(fieldErrors.invalid('spec.leaseTransitions', spec.leaseTransitions, 'must be greater than or equal to 0'));
  }
  return errs;
}

export const lease: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  validate: (obj, old) => {
    const spec = asObj(obj.spec) ?? {};
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validateLeaseSpec(spec)];
    return [...validateObjectMetaUpdate(obj, old), ...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validateLeaseSpec(spec)];
  },
  defaults: (obj) => {
    ensureObj(obj, 'spec');
  },
};
