// A small namespaced CRD (demo.example.com/v1 Gadget) for API server tests: its spec's properties
// are the caller's, so that a test can change the schema and watch the change show up.
import type { ObjectWithMeta } from '../../src/kube/object.js';

export const GADGET_CRD_NAME = 'gadgets.demo.example.com';

export function gadgetCrd(specProperties: Record<string, unknown>, specDescription?: string): ObjectWithMeta {
  const spec: Record<string, unknown> = { type: 'object', properties: specProperties };
  if (specDescription !== undefined) spec.description = specDescription;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: GADGET_CRD_NAME },
    spec: {
      group: 'demo.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      versions: [{ name: 'v1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}
