// policy, scheduling, autoscaling and networking kinds: PodDisruptionBudget, PriorityClass,
// HorizontalPodAutoscaler, NetworkPolicy, Ingress.
import { fieldErrors, type FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asArr, asObj, asStr, ensureObj, objItems, setDefault, type Obj } from './json.js';
import { CLUSTER_SUBDOMAIN, NAMESPACED_SUBDOMAIN, type KindBehaviour } from './kinds.js';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from './meta.js';
import { isValidPercent, NEGATIVE_ERROR } from './names.js';
import { invalidRendered } from './render.js';
import { goIntOrString } from './selector.js';

function metaErrors(obj: ObjectWithMeta, old: ObjectWithMeta | undefined, rules = NAMESPACED_SUBDOMAIN): FieldError[] {
  return old ? [...validateObjectMetaUpdate(obj, old), ...validateObjectMeta(obj, rules)] : validateObjectMeta(obj, rules);
}

function intOrPercent(v: unknown, field: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'number') return v < 0 ? [fieldErrors.invalid(field, v, NEGATIVE_ERROR)] : [];
  const s = asStr(v);
  const errs = isValidPercent(s).map((msg) => invalidRendered(field, goIntOrString(s), msg));
  if (errs.length === 0 && Number.parseInt(s, 10) > 100) errs.push(invalidRendered(field, goIntOrString(s), 'must not be greater than 100%'));
  return errs;
}

// An empty selector of a policy/v1beta1 PodDisruptionBudget selects no pods, of a policy/v1 one all
// pods. As kube-apiserver, the server stores (in v1) a v1beta1 empty selector as one that matches
// nothing, and shows a v1 empty selector to v1beta1 clients as one that matches everything, both
// through a reserved label key that is otherwise dropped from v1beta1 selectors.
const PDB_V1BETA1_LABEL = 'pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match';
type LabelOperator = 'Exists' | 'DoesNotExist';

const onPdbLabel = (operator: LabelOperator): Obj => ({ matchExpressions: [{ key: PDB_V1BETA1_LABEL, operator }] });

/** Equal to the selector on the reserved label with that operator, or (without one) empty; nil and empty lists and maps alike, as apimachinery's semantic equality has it. */
function isSelector(selector: Obj, operator?: LabelOperator): boolean {
  const expressions = asArr(selector.matchExpressions);
  if (Object.keys(asObj(selector.matchLabels) ?? {}).length > 0) return false;
  if (operator === undefined) return expressions.length === 0;
  const e = asObj(expressions[0]);
  return expressions.length === 1 && e !== undefined && e.key === PDB_V1BETA1_LABEL && e.operator === operator && asArr(e.values).length === 0;
}

function withPdbSelector(obj: ObjectWithMeta, convert: (selector: Obj) => Obj | undefined): ObjectWithMeta {
  const spec = asObj(obj.spec);
  const selector = asObj(spec?.selector);
  const next = selector && convert(selector);
  return next ? { ...obj, spec: { ...spec, selector: next } } : obj;
}

const pdbV1beta1 = {
  toStorage: (obj: ObjectWithMeta) =>
    withPdbSelector(obj, (s) => {
      if (isSelector(s)) return onPdbLabel('Exists');
      if (isSelector(s, 'DoesNotExist')) return {};
      const expressions = asArr(s.matchExpressions);
      const kept = expressions.filter((e) => asObj(e)?.key !== PDB_V1BETA1_LABEL);
      if (kept.length === expressions.length) return undefined;
      const { matchExpressions: _dropped, ...rest } = s;
      return kept.length > 0 ? { ...rest, matchExpressions: kept } : rest;
    }),
  fromStorage: (obj: ObjectWithMeta) =>
    withPdbSelector(obj, (s) => {
      if (isSelector(s, 'Exists')) return {};
      if (isSelector(s)) return onPdbLabel('DoesNotExist');
      return undefined;
    }),
};

export const podDisruptionBudget: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  versions: { v1beta1: pdbV1beta1 },
  prepareCreate: (obj) => {
    obj.status = { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 };
  },
  validate: (obj, old) => {
    const errs = metaErrors(obj, old);
    const spec = asObj(obj.spec) ?? {};
    if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined) {
      errs.push(invalidRendered('spec.minAvailable', goIntOrString(spec.minAvailable), 'minAvailable and maxUnavailable cannot be both set'));
    }
    errs.push(...intOrPercent(spec.minAvailable, 'spec.minAvailable'), ...intOrPercent(spec.maxUnavailable, 'spec.maxUnavailable'));
    errs.push(...validateLabelSelector(spec.selector, 'spec.selector'));
    return errs;
  },
};

const HIGHEST_USER_PRIORITY = 1000000000;

export const priorityClass: KindBehaviour = {
  meta: CLUSTER_SUBDOMAIN,
  defaults: (obj) => {
    if (!obj.preemptionPolicy) obj.preemptionPolicy = 'PreemptLowerPriority';
  },
  validate: (obj, old) => {
    const errs = metaErrors(obj, old, CLUSTER_SUBDOMAIN);
    const name = asStr(obj.metadata.name);
    const value = typeof obj.value === 'number' ? obj.value : 0;
    if (!old) {
      if (name.startsWith('system-')) errs.push(fieldErrors.forbidden('metadata.name', "priority class names with 'system-' prefix are reserved for system use only"));
      else if (value > HIGHEST_USER_PRIORITY) errs.push(fieldErrors.forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_PRIORITY}`));
    } else {
      if (obj.value !== old.value) errs.push(fieldErrors.forbidden('value', 'may not be changed in an update.'));
      if (obj.preemptionPolicy !== old.preemptionPolicy) errs.push(fieldErrors.invalid('preemptionPolicy', asStr(obj.preemptionPolicy), 'field is immutable'));
    }
    const policy = asStr(obj.preemptionPolicy);
    if (policy !== 'PreemptLowerPriority' && policy !== 'Never') errs.push(fieldErrors.notSupported('preemptionPolicy', policy, ['Never', 'PreemptLowerPriority']));
    return errs;
  },
};

const SCALE_UP = { stabilizationWindowSeconds: 0, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }] };
const SCALE_DOWN = { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] };

function defaultScalingRules(behavior: Obj, key: string, defaults: Obj): void {
  const rules = asObj(behavior[key]);
  if (!rules) {
    behavior[key] = JSON.parse(JSON.stringify(defaults)) as Obj;
    return;
  }
  for (const k of Object.keys(defaults)) setDefault(rules, k, JSON.parse(JSON.stringify(defaults[k])));
}

export const horizontalPodAutoscaler: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    const spec = ensureObj(obj, 'spec');
    setDefault(spec, 'minReplicas', 1);
    if (obj.apiVersion === 'autoscaling/v1') {
      setDefault(spec, 'targetCPUUtilizationPercentage', 80);
      return;
    }
    if (asArr(spec.metrics).length === 0) spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
    const behavior = asObj(spec.behavior);
    if (behavior) {
      defaultScalingRules(behavior, 'scaleUp', SCALE_UP);
      defaultScalingRules(behavior, 'scaleDown', SCALE_DOWN);
    }
  },
  prepareCreate: (obj) => {
    obj.status = obj.apiVersion === 'autoscaling/v1' ? { currentReplicas: 0, desiredReplicas: 0 } : { desiredReplicas: 0 };
  },
  validate: (obj, old) => {
    const errs = metaErrors(obj, old);
    const spec = asObj(obj.spec) ?? {};
    const ref = asObj(spec.scaleTargetRef) ?? {};
    if (!asStr(ref.kind)) errs.push(fieldErrors.required('spec.scaleTargetRef.kind'));
    if (!asStr(ref.name)) errs.push(fieldErrors.required('spec.scaleTargetRef.name'));
    const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : undefined;
    const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
    if (min !== undefined && min < 1) errs.push(fieldErrors.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
    if (max < 1) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than 0'));
    if (min !== undefined && max < min) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
    return errs;
  },
};

export const networkPolicy: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  defaults: (obj) => {
    const spec = ensureObj(obj, 'spec');
    setDefault(spec, 'podSelector', {});
    for (const dir of ['ingress', 'egress']) for (const rule of objItems(spec[dir])) for (const p of objItems(rule.ports)) if (!p.protocol) p.protocol = 'TCP';
    if (asArr(spec.policyTypes).length === 0) spec.policyTypes = asArr(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  },
  validate: (obj, old) => {
    const errs = metaErrors(obj, old);
    const spec = asObj(obj.spec) ?? {};
    errs.push(...validateLabelSelector(spec.podSelector, 'spec.podSelector'));
    asArr(spec.policyTypes).forEach((t, i) => {
      if (t !== 'Ingress' && t !== 'Egress') errs.push(fieldErrors.notSupported(`spec.policyTypes[${i}]`, t, ['Ingress', 'Egress']));
    });
    return errs;
  },
};

const PATH_TYPES = ['Exact', 'ImplementationSpecific', 'Prefix'];

export const ingress: KindBehaviour = {
  meta: NAMESPACED_SUBDOMAIN,
  prepareCreate: (obj) => {
    obj.status = { loadBalancer: {} };
  },
  validate: (obj, old) => {
    const errs = metaErrors(obj, old);
    const spec = asObj(obj.spec) ?? {};
    if (!spec.defaultBackend && asArr(spec.rules).length === 0) errs.push(fieldErrors.invalid('spec.rules', null, 'either `defaultBackend` or `rules` must be specified'));
    objItems(spec.rules).forEach((rule, i) => {
      objItems(asObj(rule.http)?.paths).forEach((p, j) => {
        const at = `spec.rules[${i}].http.paths[${j}]`;
        const pathType = p.pathType;
        if (pathType === undefined || pathType === null) errs.push(fieldErrors.required(`${at}.pathType`, 'pathType must be specified'));
        else if (!PATH_TYPES.includes(asStr(pathType))) errs.push(fieldErrors.notSupported(`${at}.pathType`, pathType, PATH_TYPES));
        const path = asStr(p.path);
        if (pathType !== 'ImplementationSpecific' && path && !path.startsWith('/')) errs.push(fieldErrors.invalid(`${at}.path`, path, "must be an absolute path"));
      });
    });
    return errs;
  },
};
