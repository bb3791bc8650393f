// apps/v1 and batch/v1 kinds: Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob.
import { randomUUID } from 'node:crypto';
import { fieldErrors, type FieldError } from '../errors.js';
import { jsonEqual } from '../../kube/json.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asObj, asStr, ensureObj, setDefault, type Obj } from './json.js';
import { NAMESPACED_SUBDOMAIN, type KindBehaviour } from './kinds.js';
import { isEmptySelector, selectorMatches, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './meta.js';
import { isValidPercent, NEGATIVE_ERROR } from './names.js';
import { defaultPodTemplate, templateLabels, validatePodTemplateSpec } from './pod.js';
import { goStringMap, invalidRendered } from './render.js';
import { goIntOrString, goLabelSelector } from './selector.js';

function spec(obj: ObjectWithMeta): Obj {
  return ensureObj(obj, 'spec');
}

function nonNegative(v: unknown, field: string): FieldError[] {
  return typeof v === 'number' && v < 0 ? [fieldErrors.invalid(field, v, NEGATIVE_ERROR)] : [];
}

function positiveIntOrPercent(v: unknown, field: string): FieldError[] {
  if (typeof v === 'string') return isValidPercent(v).map((msg) => invalidRendered(field, goIntOrString(v), msg));
  return nonNegative(v, field);
}

function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  const n = Number.parseInt(asStr(v), 10);
  return Number.isNaN(n) ? 0 : n;
}

function notMoreThan100Percent(v: unknown, field: string): FieldError[] {
  if (typeof v !== 'string' || isValidPercent(v).length > 0) return [];
  return intOrPercentValue(v) > 100 ? [invalidRendered(field, goIntOrString(v), 'must not be greater than 100%')] : [];
}

/** Selector required and non-empty, template labels matched, template valid, restartPolicy Always. */
function validateReplicatedTemplate(s: Obj, what: string): FieldError[] {
  const errs: FieldError[] = [];
  const selector = asObj(s.selector);
  if (!selector) errs.push(fieldErrors.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(selector, 'spec.selector'));
    if (isEmptySelector(selector)) errs.push(invalidRendered('spec.selector', goLabelSelector(selector), `empty selector is invalid for ${what}`));
  }
  const template = asObj(s.template);
  if (!template) {
    errs.push(fieldErrors.required('spec.template'));
    return errs;
  }
  if (selector && !isEmptySelector(selector) && !selectorMatches(selector, templateLabels(template))) {
    errs.push(invalidRendered('spec.template.metadata.labels', goStringMap(templateLabels(template)), '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const podSpec = asObj(template.spec) ?? {};
  const restart = asStr(podSpec.restartPolicy);
  if (restart && restart !== 'Always') errs.push(fieldErrors.notSupported('spec.template.spec.restartPolicy', restart, ['Always']));
  return errs;
}

function selectorImmutable(obj: ObjectWithMeta, old: ObjectWithMeta): FieldError[] {
  const now = asObj(spec(obj).selector);
  const before = asObj(asObj(old.spec)?.selector);
  return jsonEqual(now, before) ? [] : [invalidRendered('spec.selector', goLabelSelector(now), 'field is immutable')];
}

// --- Deployment

function defaultDeployment(obj: ObjectWithMeta): void {
  const s = spec(obj);
  setDefault(s, 'replicas', 1);
  const strategy = ensureObj(s, 'strategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const ru = ensureObj(strategy, 'rollingUpdate');
    setDefault(ru, 'maxUnavailable', '25%');
    setDefault(ru, 'maxSurge', '25%');
  }
  setDefault(s, 'revisionHistoryLimit', 10);
  setDefault(s, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(ensureObj(s, 'template'));
}

function validateDeploymentStrategy(strategy: Obj): FieldError[] {
  const type = asStr(strategy.type);
  if (type === 'Recreate') {
    return strategy.rollingUpdate ? [fieldErrors.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")] : [];
  }
  if (type === 'RollingUpdate') {
    const ru = asObj(strategy.rollingUpdate);
    if (!ru) return [fieldErrors.required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil')];
    const at = 'spec.strategy.rollingUpdate';
    const errs = [...positiveIntOrPercent(ru.maxUnavailable, `${at}.maxUnavailable`), ...positiveIntOrPercent(ru.maxSurge, `${at}.maxSurge`)];
    if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
      errs.push(invalidRendered(`${at}.maxUnavailable`, goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
    }
    errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${at}.maxUnavailable`));
    return errs;
  }
  return [fieldErrors.notSupported('spec.strategy', type, ['Recreate', 'RollingUpdate'])];
}

function validateDeploymentSpec(s: Obj): FieldError[] {
  const errs = nonNegative(s.replicas, 'spec.replicas');
  errs.push(...validateReplicatedTemplate(s, 'deployment'));
  errs.push(...validateDeploymentStrategy(asObj(s.strategy) ?? {}));
  errs.push(...nonNegative(s.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...nonNegative(s.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (typeof s.progressDeadlineSeconds === 'number') {
    errs.push(...nonNegative(s.progressDeadlineSeconds, 'spec.progressDeadlineSeconds'));
    const minReady = typeof s.minReadySeconds === 'number' ? s.minReadySeconds : 0;
    if (s.progressDeadlineSeconds <= minReady) errs.push(fieldErrors.invalid('spec.progressDeadlineSeconds', s.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

export const deployment: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: defaultDeployment,
  prepareCreate: (obj) => {
    obj.status = {};
  },
  validate: (obj, old) => {
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validateDeploymentSpec(spec(obj))];
    return [...validateObjectMetaUpdate(obj, old), ...validateDeploymentSpec(spec(obj)), ...selectorImmutable(obj, old)];
  },
};

// --- ReplicaSet

export const replicaSet: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    const s = spec(obj);
    setDefault(s, 'replicas', 1);
    defaultPodTemplate(ensureObj(s, 'template'));
  },
  prepareCreate: (obj) => {
    obj.status = { replicas: 0 };
  },
  validate: (obj, old) => {
    const s = spec(obj);
    const specErrs = [...nonNegative(s.replicas, 'spec.replicas'), ...nonNegative(s.minReadySeconds, 'spec.minReadySeconds'), ...validateReplicatedTemplate(s, 'deployment')];
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...specErrs];
    return [...validateObjectMetaUpdate(obj, old), ...specErrs, ...selectorImmutable(obj, old)];
  },
};

// --- StatefulSet

function defaultStatefulSet(obj: ObjectWithMeta): void {
  const s = spec(obj);
  if (!s.podManagementPolicy) s.podManagementPolicy = 'OrderedReady';
  const strategy = ensureObj(s, 'updateStrategy');
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') setDefault(ensureObj(strategy, 'rollingUpdate'), 'partition', 0);
  setDefault(s, 'replicas', 1);
  setDefault(s, 'revisionHistoryLimit', 10);
  defaultPodTemplate(ensureObj(s, 'template'));
  if (Array.isArray(s.volumeClaimTemplates)) {
    for (const pvc of s.volumeClaimTemplates) {
      const claim = asObj(pvc);
      if (!claim) continue;
      const meta = ensureObj(claim, 'metadata');
      if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
      defaultPersistentVolumeClaimSpec(ensureObj(claim, 'spec'));
      const status = ensureObj(claim, 'status');
      if (!status.phase) status.phase = 'Pending';
    }
  }
}

export function defaultPersistentVolumeClaimSpec(s: Obj): void {
  if (!s.volumeMode) s.volumeMode = 'Filesystem';
  setDefault(s, 'resources', {});
}

function validateStatefulSetSpec(s: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const pmp = asStr(s.podManagementPolicy);
  if (!pmp) errs.push(fieldErrors.required('spec.podManagementPolicy'));
  else if (pmp !== 'OrderedReady' && pmp !== 'Parallel') errs.push(fieldErrors.invalid('spec.podManagementPolicy', pmp, "must be 'OrderedReady' or 'Parallel'"));
  const strategy = asObj(s.updateStrategy) ?? {};
  const type = asStr(strategy.type);
  if (!type) errs.push(fieldErrors.required('spec.updateStrategy'));
  else if (type === 'OnDelete') {
    if (strategy.rollingUpdate) errs.push(invalidRendered('spec.updateStrategy.rollingUpdate', '&apps.RollingUpdateStatefulSetStrategy{}', "only allowed for updateStrategy 'RollingUpdate'"));
  } else if (type === 'RollingUpdate') {
    errs.push(...nonNegative(asObj(strategy.rollingUpdate)?.partition, 'spec.updateStrategy.rollingUpdate.partition'));
  } else {
    errs.push(invalidRendered('spec.updateStrategy', `apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(type)}}`, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  errs.push(...nonNegative(s.replicas, 'spec.replicas'));
  errs.push(...nonNegative(s.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateReplicatedTemplate(s, 'statefulset'));
  return errs;
}

const STATEFULSET_MUTABLE = ['replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];

export const statefulSet: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: defaultStatefulSet,
  prepareCreate: (obj) => {
    obj.status = { replicas: 0, availableReplicas: 0 };
  },
  validate: (obj, old) => {
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validateStatefulSetSpec(spec(obj))];
    const now = { ...spec(obj) };
    const before = { ...(asObj(old.spec) ?? {}) };
    for (const k of STATEFULSET_MUTABLE) {
      delete now[k];
      delete before[k];
    }
    const errs = validateObjectMetaUpdate(obj, old);
    if (!jsonEqual(now, before)) {
      errs.push(fieldErrors.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"));
    }
    errs.push(...validateStatefulSetSpec(spec(obj)));
    return errs;
  },
};

// --- DaemonSet

function validateDaemonSetSpec(s: Obj): FieldError[] {
  const errs = validateReplicatedTemplate(s, 'daemonset');
  errs.push(...nonNegative(s.minReadySeconds, 'spec.minReadySeconds'));
  const strategy = asObj(s.updateStrategy) ?? {};
  const type = asStr(strategy.type);
  if (type === 'RollingUpdate') {
    const ru = asObj(strategy.rollingUpdate);
    if (!ru) errs.push(fieldErrors.required('spec.updateStrategy.rollingUpdate'));
    else {
      const at = 'spec.updateStrategy.rollingUpdate';
      errs.push(...positiveIntOrPercent(ru.maxUnavailable, `${at}.maxUnavailable`), ...positiveIntOrPercent(ru.maxSurge, `${at}.maxSurge`));
      if (intOrPercentValue(ru.maxUnavailable) === 0 && intOrPercentValue(ru.maxSurge) === 0) {
        errs.push(invalidRendered(`${at}.maxUnavailable`, goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      errs.push(...notMoreThan100Percent(ru.maxUnavailable, `${at}.maxUnavailable`));
    }
  } else if (type !== 'OnDelete') {
    errs.push(fieldErrors.notSupported('spec.updateStrategy', type, ['OnDelete', 'RollingUpdate']));
  }
  errs.push(...nonNegative(s.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return errs;
}

export const daemonSet: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    const s = spec(obj);
    const strategy = ensureObj(s, 'updateStrategy');
    if (!strategy.type) strategy.type = 'RollingUpdate';
    if (strategy.type === 'RollingUpdate') {
      const ru = ensureObj(strategy, 'rollingUpdate');
      setDefault(ru, 'maxUnavailable', 1);
      setDefault(ru, 'maxSurge', 0);
    }
    setDefault(s, 'revisionHistoryLimit', 10);
    defaultPodTemplate(ensureObj(s, 'template'));
  },
  prepareCreate: (obj) => {
    obj.status = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
  },
  validate: (obj, old) => {
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validateDaemonSetSpec(spec(obj))];
    return [...validateObjectMetaUpdate(obj, old), ...validateDaemonSetSpec(spec(obj)), ...selectorImmutable(obj, old)];
  },
};

// --- Job

function defaultJobSpec(s: Obj, topLevel: boolean): void {
  if (topLevel) {
    if (s.completions === undefined && s.parallelism === undefined) {
      s.completions = 1;
      s.parallelism = 1;
    }
    setDefault(s, 'parallelism', 1);
    setDefault(s, 'backoffLimit', 6);
    if (!s.completionMode) s.completionMode = 'NonIndexed';
    setDefault(s, 'suspend', false);
  }
  defaultPodTemplate(ensureObj(s, 'template'));
}

/** validateJobSpec without the selector rules (shared with CronJob's jobTemplate). */
function validateJobSpecCommon(s: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) errs.push(...nonNegative(s[key], `${at}.${key}`));
  const mode = s.completionMode;
  if (mode !== undefined && mode !== null) {
    if (mode !== 'NonIndexed' && mode !== 'Indexed') errs.push(fieldErrors.notSupported(`${at}.completionMode`, mode, ['NonIndexed', 'Indexed']));
    if (mode === 'Indexed' && typeof s.completions !== 'number') errs.push(fieldErrors.required(`${at}.completions`, 'when completion mode is Indexed'));
  }
  const template = asObj(s.template) ?? {};
  errs.push(...validatePodTemplateSpec(template, `${at}.template`));
  const restart = asStr(asObj(template.spec)?.restartPolicy);
  if (restart !== 'OnFailure' && restart !== 'Never') errs.push(fieldErrors.notSupported(`${at}.template.spec.restartPolicy`, restart, ['OnFailure', 'Never']));
  return errs;
}

function validateJobSpec(s: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const selector = asObj(s.selector);
  if (!selector) errs.push(fieldErrors.required('spec.selector'));
  else errs.push(...validateLabelSelector(selector, 'spec.selector'));
  const template = asObj(s.template) ?? {};
  if (selector && !selectorMatches(selector, templateLabels(template))) {
    errs.push(invalidRendered('spec.template.metadata.labels', goStringMap(templateLabels(template)), '`selector` does not match template `labels`'));
  }
  const common = validateJobSpecCommon(s, 'spec');
  // Upstream checks numbers and completion mode before the selector.
  const selectorErrs = errs.splice(0);
  const templateAt = common.findIndex((e) => e.field.startsWith('spec.template'));
  const cut = templateAt < 0 ? common.length : templateAt;
  return [...common.slice(0, cut), ...selectorErrs, ...common.slice(cut)];
}

function generateJobSelector(obj: ObjectWithMeta): void {
  const s = spec(obj);
  if (s.manualSelector === true) return;
  if (!obj.metadata.uid) obj.metadata.uid = randomUUID();
  const uid = obj.metadata.uid;
  const template = ensureObj(s, 'template');
  const labels = ensureObj(ensureObj(template, 'metadata'), 'labels');
  labels['controller-uid'] = uid;
  labels['job-name'] = asStr(obj.metadata.name);
  if (!s.selector) s.selector = { matchLabels: { 'controller-uid': uid } };
}

export const job: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => defaultJobSpec(spec(obj), true),
  prepareCreate: (obj) => {
    obj.status = {};
    generateJobSelector(obj);
  },
  validate: (obj, old) => {
    if (!old) return [...validateObjectMeta(obj, NAMESPACED_SUBDOMAIN), ...validateJobSpec(spec(obj))];
    const s = spec(obj);
    const o = asObj(old.spec) ?? {};
    const errs = [...validateObjectMetaUpdate(obj, old), ...validateJobSpec(s)];
    if (!jsonEqual(s.completions, o.completions)) errs.push(fieldErrors.invalid('spec.completions', s.completions ?? null, 'field is immutable'));
    errs.push(...selectorImmutable(obj, old));
    if (!jsonEqual(s.template, o.template)) errs.push(invalidRendered('spec.template', 'core.PodTemplateSpec{...}', 'field is immutable'));
    if (!jsonEqual(s.completionMode, o.completionMode)) errs.push(fieldErrors.invalid('spec.completionMode', s.completionMode ?? null, 'field is immutable'));
    return errs;
  },
};

// --- CronJob

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];

function validateSchedule(schedule: string): FieldError[] {
  if (!schedule) return [fieldErrors.required('spec.schedule')];
  if (schedule.startsWith('@')) return [];
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) return [fieldErrors.invalid('spec.schedule', schedule, `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`)];
  return [];
}

function validateCronJobSpec(s: Obj): FieldError[] {
  const errs = validateSchedule(asStr(s.schedule));
  if (typeof s.timeZone === 'string') errs.push(fieldErrors.forbidden('spec.timeZone', 'timeZone is not allowed'));
  const policy = asStr(s.concurrencyPolicy);
  if (!policy) errs.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  errs.push(...nonNegative(s.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  errs.push(...nonNegative(s.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  errs.push(...nonNegative(s.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  const jobTemplate = asObj(s.jobTemplate) ?? {};
  const jobSpec = asObj(jobTemplate.spec) ?? {};
  errs.push(...validateJobSpecCommon(jobSpec, 'spec.jobTemplate.spec'));
  if (jobSpec.selector) errs.push(invalidRendered('spec.jobTemplate.spec.selector', goLabelSelector(asObj(jobSpec.selector)), '`selector` will be auto-generated'));
  if (jobSpec.manualSelector === true) errs.push(fieldErrors.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  return errs;
}

export const cronJob: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  // Job names get an 11-character suffix and must stay DNS-1035 labels.
  extraName: (name) => (name.length > 52 ? ['must be no more than 52 characters'] : []),
  defaults: (obj) => {
    const s = spec(obj);
    if (!s.concurrencyPolicy) s.concurrencyPolicy = 'Allow';
    setDefault(s, 'suspend', false);
    setDefault(s, 'successfulJobsHistoryLimit', 3);
    setDefault(s, 'failedJobsHistoryLimit', 1);
    const jobTemplate = ensureObj(s, 'jobTemplate');
    const meta = ensureObj(jobTemplate, 'metadata');
    if (meta.creationTimestamp === undefined) meta.creationTimestamp = null;
    defaultJobSpec(ensureObj(jobTemplate, 'spec'), false);
  },
  prepareCreate: (obj) => {
    obj.status = {};
  },
  validate: (obj, old) => {
    const metaErrs = old ? validateObjectMetaUpdate(obj, old) : validateObjectMeta(obj, NAMESPACED_SUBDOMAIN);
    return [...metaErrs, ...validateCronJobSpec(spec(obj))];
  },
};
