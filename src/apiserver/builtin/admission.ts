// admissionregistration.k8s.io/v1 Validating- and MutatingWebhookConfiguration.
import { fieldErrors, type FieldError } from '../errors.js';
import type { ObjectWithMeta } from '../../kube/object.js';
import { asArr, asObj, asStr, objItems, setDefault, type Obj } from './json.js';
import type { KindBehaviour } from './kinds.js';
import { validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate, type MetaRules } from './meta.js';
import { isDns1123Subdomain, isQualifiedName } from './names.js';
import { goStringSlice, invalidRendered } from './render.js';
import { compileExpression, MAX_MATCH_CONDITIONS } from '../match-conditions.js';
import { jsonEqual } from '../../kube/json.js';

const META: MetaRules = { name: 'subdomain', namespaced: false, kubeFinalizers: false };
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'];
const REVIEW_VERSIONS = ['v1', 'v1beta1'];
const URL_FORM = '; desired format: https://host[/path]';

function defaultWebhook(hook: Obj, mutating: boolean): void {
  if (!hook.failurePolicy) hook.failurePolicy = 'Fail';
  if (!hook.matchPolicy) hook.matchPolicy = 'Equivalent';
  setDefault(hook, 'namespaceSelector', {});
  setDefault(hook, 'objectSelector', {});
  setDefault(hook, 'timeoutSeconds', 10);
  if (mutating && !hook.reinvocationPolicy) hook.reinvocationPolicy = 'Never';
  for (const rule of objItems(hook.rules)) if (!rule.scope) rule.scope = '*';
  const service = asObj(asObj(hook.clientConfig)?.service);
  if (service) setDefault(service, 'port', 443);
}

function validateRule(rule: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const ops = asArr(rule.operations).map(asStr);
  if (ops.length === 0) errs.push(fieldErrors.required(`${at}.operations`));
  if (ops.length > 1 && ops.includes('*')) errs.push(invalidRendered(`${at}.operations`, goStringSlice(ops, '[]admissionregistration.OperationType'), "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!OPERATIONS.includes(op)) errs.push(fieldErrors.notSupported(`${at}.operations[${i}]`, op, OPERATIONS));
  });
  for (const [key, what] of [['apiGroups', 'API groups'], ['apiVersions', 'API versions']] as const) {
    const list = asArr(rule[key]).map(asStr);
    if (list.length === 0) errs.push(fieldErrors.required(`${at}.${key}`));
    if (list.length > 1 && list.includes('*')) errs.push(invalidRendered(`${at}.${key}`, goStringSlice(list), `if '*' is present, must not specify other ${what}`));
    if (key === 'apiVersions') list.forEach((v, i) => v === '' && errs.push(fieldErrors.required(`${at}.apiVersions[${i}]`)));
  }
  const resources = asArr(rule.resources).map(asStr);
  if (resources.length === 0) errs.push(fieldErrors.required(`${at}.resources`));
  const scope = rule.scope;
  if (typeof scope === 'string' && !SCOPES.includes(scope)) errs.push(fieldErrors.notSupported(`${at}.scope`, scope, SCOPES));
  return errs;
}

function validateUrl(url: string, at: string): FieldError[] {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [fieldErrors.required(at, `url must be a valid URL: parse ${JSON.stringify(url)}: invalid URI for request${URL_FORM}`)];
  }
  const errs: FieldError[] = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldErrors.invalid(at, scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (!u.host) errs.push(fieldErrors.invalid(at, u.host, `host must be specified${URL_FORM}`));
  if (u.username || u.password) errs.push(fieldErrors.invalid(at, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(fieldErrors.invalid(at, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fieldErrors.invalid(at, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function validateWebhook(hook: Obj, at: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = asStr(hook.name);
  if (!name) errs.push(fieldErrors.required(`${at}.name`));
  else {
    const msgs = isDns1123Subdomain(name);
    if (msgs.length > 0) errs.push(fieldErrors.invalid(`${at}.name`, name, msgs.join(',')));
    else if (name.split('.').length < 3) errs.push(fieldErrors.invalid(`${at}.name`, name, 'should be a domain with at least three segments separated by dots'));
  }
  objItems(hook.rules).forEach((rule, i) => errs.push(...validateRule(rule, `${at}.rules[${i}]`)));
  const failurePolicy = hook.failurePolicy;
  if (typeof failurePolicy === 'string' && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore') errs.push(fieldErrors.notSupported(`${at}.failurePolicy`, failurePolicy, ['Fail', 'Ignore']));
  const matchPolicy = hook.matchPolicy;
  if (typeof matchPolicy === 'string' && matchPolicy !== 'Equivalent' && matchPolicy !== 'Exact') errs.push(fieldErrors.notSupported(`${at}.matchPolicy`, matchPolicy, ['Equivalent', 'Exact']));
  const sideEffects = hook.sideEffects;
  if (sideEffects === undefined || sideEffects === null) errs.push(fieldErrors.required(`${at}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
  else if (!SIDE_EFFECTS.includes(asStr(sideEffects))) errs.push(fieldErrors.notSupported(`${at}.sideEffects`, sideEffects, SIDE_EFFECTS));
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) errs.push(fieldErrors.invalid(`${at}.timeoutSeconds`, timeout, 'the timeout value must be between 1 and 30 seconds'));
  errs.push(...validateLabelSelector(hook.namespaceSelector, `${at}.namespaceSelector`));
  errs.push(...validateLabelSelector(hook.objectSelector, `${at}.objectSelector`));
  const cc = asObj(hook.clientConfig) ?? {};
  const hasUrl = typeof cc.url === 'string';
  const service = asObj(cc.service);
  if (hasUrl === Boolean(service)) errs.push(fieldErrors.required(`${at}.clientConfig`, 'exactly one of url or service is required'));
  else if (hasUrl) errs.push(...validateUrl(asStr(cc.url), `${at}.clientConfig.url`));
  else if (service) {
    const sp = `${at}.clientConfig.service`;
    if (!asStr(service.namespace)) errs.push(fieldErrors.required(`${sp}.namespace`, 'service namespace is required'));
    if (!asStr(service.name)) errs.push(fieldErrors.required(`${sp}.name`, 'service name is required'));
    const path = service.path;
    if (typeof path === 'string' && path !== '' && !path.startsWith('/')) errs.push(fieldErrors.invalid(`${sp}.path`, path, "must start with a '/'"));
    const port = service.port;
    if (typeof port === 'number' && (port < 1 || port > 65535)) errs.push(fieldErrors.invalid(`${sp}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  }
  if (hook.reinvocationPolicy !== undefined && hook.reinvocationPolicy !== 'Never' && hook.reinvocationPolicy !== 'IfNeeded') {
    errs.push(fieldErrors.notSupported(`${at}.reinvocationPolicy`, hook.reinvocationPolicy, ['Never', 'IfNeeded']));
  }
  return errs;
}

/** kube-apiserver's validateMatchConditions: at most 64, each expression compiling to bool, names qualified and unique. */
function validateMatchConditions(conditions: unknown, at: string): FieldError[] {
  const list = asArr(conditions);
  const errs: FieldError[] = [];
  if (list.length > MAX_MATCH_CONDITIONS) errs.push(fieldErrors.tooMany(at, list.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  list.forEach((item, i) => {
    const c = asObj(item) ?? {};
    const expression = asStr(c.expression).trim();
    if (!expression) errs.push(fieldErrors.required(`${at}[${i}].expression`));
    else {
      const compiled = compileExpression(expression);
      if ('error' in compiled) errs.push(fieldErrors.invalid(`${at}[${i}].expression`, expression, compiled.error));
    }
    const name = asStr(c.name);
    if (!name) errs.push(fieldErrors.required(`${at}[${i}].name`));
    else {
      for (const msg of isQualifiedName(name)) errs.push(fieldErrors.invalid(`${at}[${i}].name`, name, msg));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}[${i}].name`, JSON.stringify(name)));
      names.add(name);
    }
  });
  return errs;
}

/** kube-apiserver checks matchConditions on update only when some webhook's changed (or their number). */
function matchConditionsChanged(obj: ObjectWithMeta, old: ObjectWithMeta): boolean {
  const now = objItems(obj.webhooks);
  const before = objItems(old.webhooks);
  return now.length !== before.length || now.some((hook, i) => !jsonEqual(hook.matchConditions ?? null, before[i].matchConditions ?? null));
}

function validateReviewVersions(versions: unknown, at: string): FieldError[] {
  const list = asArr(versions).map(asStr);
  if (list.length === 0) return [fieldErrors.required(at, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((v, i) => {
    if (seen.has(v)) errs.push(fieldErrors.invalid(`${at}[${i}]`, v, 'duplicate version'));
    seen.add(v);
  });
  if (!list.some((v) => REVIEW_VERSIONS.includes(v))) errs.push(invalidRendered(at, goStringSlice(list), `must include at least one of ${REVIEW_VERSIONS.join(', ')}`));
  return errs;
}

function validateConfiguration(obj: ObjectWithMeta, old: ObjectWithMeta | undefined): FieldError[] {
  const errs = validateObjectMeta(obj, META);
  const names = new Set<string>();
  const checkConditions = !old || matchConditionsChanged(obj, old);
  objItems(obj.webhooks).forEach((hook, i) => {
    const at = `webhooks[${i}]`;
    errs.push(...validateWebhook(hook, at));
    // kube-apiserver's order: the webhook's fields, its matchConditions, then admissionReviewVersions.
    if (checkConditions) errs.push(...validateMatchConditions(hook.matchConditions, `${at}.matchConditions`));
    errs.push(...validateReviewVersions(hook.admissionReviewVersions, `${at}.admissionReviewVersions`));
    const name = asStr(hook.name);
    if (name) {
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, JSON.stringify(name)));
      names.add(name);
    }
  });
  if (old) errs.push(...validateObjectMetaUpdate(obj, old));
  return errs;
}

function behaviour(mutating: boolean): KindBehaviour {
  return {
    meta: META,
    defaults: (obj) => {
      for (const hook of objItems(obj.webhooks)) defaultWebhook(hook, mutating);
    },
    validate: validateConfiguration,
  };
}

export const validatingWebhookConfiguration = behaviour(false);
export const mutatingWebhookConfiguration = behaviour(true);
