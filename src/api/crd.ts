// A kind of the control plane's APIs: its names, its schema (written once with schema.ts) and how
// it prints. From it come the TypeScript type of its objects and its CustomResourceDefinition.
import type { ObjectMeta } from '../kube/object.js';
import type { CelRule, Infer, JSONSchemaProps, Schema } from './schema.js';

export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  jsonPath: string;
  description?: string;
  priority?: number;
  format?: string;
}

export interface KindSpec<S extends Schema<unknown>, St extends Schema<unknown> | undefined> {
  group: string;
  version: string;
  kind: string;
  plural: string;
  singular: string;
  shortNames?: string[];
  categories?: string[];
  scope: 'Namespaced' | 'Cluster';
  description: string;
  spec: S;
  /** Kinds with a status have the status subresource. */
  status?: St;
  /** Rules over the whole object (self is the object; `self.metadata` offers only name and generateName). */
  validations?: CelRule[];
  printerColumns?: PrinterColumn[];
  /** Is spec required (most kinds: yes). */
  specRequired?: boolean;
  /** Markdown for docs/api.md: upstream compatibility, fields kept but unread, project extensions. */
  notes?: string;
}

export interface Kind<S extends Schema<unknown>, St extends Schema<unknown> | undefined> extends KindSpec<S, St> {
  apiVersion: string;
  listKind: string;
}

/** An object of a kind, as stored and served. */
export type ObjectOf<K> =
  K extends Kind<infer S, infer St>
    ? { apiVersion: string; kind: string; metadata: ObjectMeta; spec: Infer<S> } & (St extends Schema<unknown> ? { status?: Infer<St> } : unknown)
    : never;

export function defineKind<S extends Schema<unknown>, St extends Schema<unknown> | undefined = undefined>(spec: KindSpec<S, St>): Kind<S, St> {
  return { ...spec, apiVersion: `${spec.group}/${spec.version}`, listKind: `${spec.kind}List` };
}

function rootSchema(k: Kind<Schema<unknown>, Schema<unknown> | undefined>): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {
    apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object.' },
    kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents.' },
    metadata: { type: 'object' },
    spec: k.spec.openapi,
  };
  if (k.status) properties.status = k.status.openapi;
  const root: JSONSchemaProps = { description: k.description, type: 'object', properties };
  if (k.specRequired !== false) root.required = ['spec'];
  if (k.validations && k.validations.length > 0) root['x-kubernetes-validations'] = k.validations;
  return root;
}

/** The CustomResourceDefinition (apiextensions.k8s.io/v1) of one or more versions of a kind; the first is stored. */
export function crdOf(...versions: Kind<Schema<unknown>, Schema<unknown> | undefined>[]): Record<string, unknown> {
  const k = versions[0];
  const names: Record<string, unknown> = { kind: k.kind, listKind: k.listKind, plural: k.plural, singular: k.singular };
  if (k.shortNames && k.shortNames.length > 0) names.shortNames = k.shortNames;
  if (k.categories && k.categories.length > 0) names.categories = k.categories;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${k.plural}.${k.group}` },
    spec: {
      group: k.group,
      names,
      scope: k.scope,
      versions: versions.map((v, i) => {
        const entry: Record<string, unknown> = { name: v.version, served: true, storage: i === 0 };
        if (v.printerColumns && v.printerColumns.length > 0) entry.additionalPrinterColumns = v.printerColumns;
        entry.schema = { openAPIV3Schema: rootSchema(v) };
        if (v.status) entry.subresources = { status: {} };
        return entry;
      }),
    },
  };
}
