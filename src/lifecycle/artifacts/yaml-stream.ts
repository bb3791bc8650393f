// A raw manifest is a YAML stream of Kubernetes objects; empty documents are skipped and `kind: List`
// documents are flattened into their items.
import yaml from 'js-yaml';
import type { KubeObject } from '../../kube/object.js';
import { ArtifactError } from './types.js';

export function parseObjects(text: string, source: string): KubeObject[] {
  let docs: unknown[];
  try {
    docs = yaml.loadAll(text, undefined, { schema: yaml.CORE_SCHEMA });
  } catch (e) {
    throw new ArtifactError('InvalidYAML', `${source}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const objects: KubeObject[] = [];
  docs.forEach((doc, i) => {
    if (doc === null || doc === undefined) return;
    const items = isList(doc) ? doc.items : [doc];
    for (const item of items) objects.push(asObject(item, `${source}: document ${i + 1}`));
  });
  return objects;
}

function isList(doc: unknown): doc is { items: unknown[] } {
  return isRecord(doc) && typeof doc.kind === 'string' && doc.kind.endsWith('List') && Array.isArray(doc.items);
}

function asObject(doc: unknown, where: string): KubeObject {
  if (!isRecord(doc)) throw new ArtifactError('InvalidYAML', `${where} is not a mapping`);
  if (typeof doc.apiVersion !== 'string' || !doc.apiVersion) throw new ArtifactError('InvalidYAML', `${where} has no apiVersion`);
  if (typeof doc.kind !== 'string' || !doc.kind) throw new ArtifactError('InvalidYAML', `${where} has no kind`);
  if (!isRecord(doc.metadata) || typeof doc.metadata.name !== 'string' || !doc.metadata.name) {
    throw new ArtifactError('InvalidYAML', `${where} (${doc.kind}) has no metadata.name`);
  }
  return doc as KubeObject;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
