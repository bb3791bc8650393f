// `{{...}}` references in scenario paths and bodies.
import { isPlainObject } from '../../src/kube/json.js';
import { selectPath } from './select.js';
import type { JsonValue } from './types.js';

export interface TemplateContext {
  namespace: string;
  /** Earlier request steps by id: their status and full (unselected) response body. */
  responses: Map<string, { status: number; body?: JsonValue }>;
  /** Running webhooks by id. */
  webhooks: Map<string, { url: string; caBundle: string }>;
}

const REFERENCE = /\{\{([^{}]+)\}\}/g;
const WHOLE_REFERENCE = /^\{\{([^{}]+)\}\}$/;

export function resolveReference(expression: string, ctx: TemplateContext): JsonValue {
  const name = expression.trim();
  if (name === 'ns') return ctx.namespace;
  const dot = name.indexOf('.');
  const id = dot < 0 ? name : name.slice(0, dot);
  const rest = dot < 0 ? '' : name.slice(dot + 1);
  const hook = ctx.webhooks.get(id);
  if (hook && (rest === 'url' || rest === 'caBundle')) return hook[rest];
  const response = ctx.responses.get(id);
  if (!response) throw new Error(`template {{${name}}}: no earlier step "${id}"`);
  if (rest === 'status') return response.status;
  if (rest === 'body') return response.body ?? null;
  if (rest.startsWith('body.')) {
    const found = selectPath(response.body, rest.slice('body.'.length));
    if (found === undefined) throw new Error(`template {{${name}}}: step "${id}" has no such field`);
    return found;
  }
  throw new Error(`template {{${name}}}: unknown reference`);
}

function asText(value: JsonValue): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Replaces references inside a string; each value is passed through `encode` (for URLs). */
export function renderString(text: string, ctx: TemplateContext, encode: (s: string) => string = (s) => s): string {
  return text.replace(REFERENCE, (_m, expression: string) => encode(asText(resolveReference(expression, ctx))));
}

/** A path: values are URL-encoded, except the namespace which is used as is. */
export function renderPath(path: string, ctx: TemplateContext): string {
  return path.replace(REFERENCE, (_m, expression: string) => {
    const value = asText(resolveReference(expression, ctx));
    return expression.trim() === 'ns' ? value : encodeURIComponent(value);
  });
}

/** Replaces references in a JSON body. A string that is exactly one reference takes the value as is. */
export function renderBody(body: JsonValue, ctx: TemplateContext): JsonValue {
  if (typeof body === 'string') {
    const whole = WHOLE_REFERENCE.exec(body);
    return whole ? resolveReference(whole[1], ctx) : renderString(body, ctx);
  }
  if (Array.isArray(body)) return body.map((item) => renderBody(item, ctx));
  if (isPlainObject(body)) {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, value] of Object.entries(body)) out[key] = renderBody(value as JsonValue, ctx);
    return out;
  }
  return body;
}
