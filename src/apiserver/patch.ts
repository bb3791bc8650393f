// JSON merge patch (RFC 7386) and JSON patch (RFC 6902) on plain JSON values.
import { badRequest, StatusError } from './errors.js';
import { isPlainObject, jsonEqual } from '../kube/json.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

interface Op {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw badRequest(`the server rejected our request due to an error in our request`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];

function walk(doc: unknown, tokens: string[], op: string, path: string): { parent: Container; key: string } {
  let cur: unknown = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isPlainObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined || cur === null) throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function jsonPatchError(message: string): StatusError {
  return new StatusError(422, 'Invalid', message);
}

function getAt(doc: unknown, path: string, op: string): unknown {
  let cur = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isPlainObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return cur;
}

function arrayIndex(arr: unknown[], key: string, forInsert: boolean, op: string, path: string): number {
  if (key === '-' && forInsert) return arr.length;
  const n = Number(key);
  if (!/^\d+$/.test(key) || n > arr.length || (!forInsert && n >= arr.length)) {
    throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  }
  return n;
}

function removeAt(doc: unknown, path: string, op: string): unknown {
  const { parent, key } = walk(doc, parsePointer(path), op, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, key, false, op, path);
    return parent.splice(i, 1)[0];
  }
  if (!(key in parent)) throw jsonPatchError(`${op} operation does not apply: doc is missing path: "${path}": missing value`);
  const v = parent[key];
  delete parent[key];
  return v;
}

function addAt(doc: unknown, path: string, value: unknown, op: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const { parent, key } = walk(doc, tokens, op, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true, op, path), 0, value);
  else parent[key] = value;
  return doc;
}

/** Applies a JSON patch; `doc` is modified in place and also returned (a root replacement returns the new root). */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('the server rejected our request due to an error in our request');
  let root = doc;
  for (const raw of ops as Op[]) {
    const op = raw.op;
    switch (op) {
      case 'add':
        root = addAt(root, raw.path, structuredClone(raw.value), op);
        break;
      case 'remove':
        removeAt(root, raw.path, op);
        break;
      case 'replace': {
        const tokens = parsePointer(raw.path);
        if (tokens.length === 0) {
          root = structuredClone(raw.value);
          break;
        }
        const { parent, key } = walk(root, tokens, op, raw.path);
        if (Array.isArray(parent)) parent[arrayIndex(parent, key, false, op, raw.path)] = structuredClone(raw.value);
        else {
          if (!(key in parent)) throw jsonPatchError(`replace operation does not apply: doc is missing key: ${raw.path}: missing value`);
          parent[key] = structuredClone(raw.value);
        }
        break;
      }
      case 'move': {
        const v = removeAt(root, raw.from ?? '', op);
        root = addAt(root, raw.path, v, op);
        break;
      }
      case 'copy':
        root = addAt(root, raw.path, structuredClone(getAt(root, raw.from ?? '', op)), op);
        break;
      case 'test':
        // kube-apiserver reports a failed test with its generic message and empty details.
        if (!jsonEqual(getAt(root, raw.path, op), raw.value)) throw new StatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
        break;
      default:
        throw jsonPatchError(`Unexpected kind: ${String(op)}`);
    }
  }
  return root;
}
