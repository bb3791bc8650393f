// The meta/v1 and runtime types the codec needs for any kind (the runtime.Unknown envelope, Status
// answers, DeleteOptions bodies, watch events), in the catalog's notation, used only where the
// catalog does not describe them.
import { PACKAGE_ALIASES, type PackageTypes, parseTypes, type TypeDef } from '../types/index.js';

const FACTS: Record<string, PackageTypes> = {
  [PACKAGE_ALIASES.meta]: {
    Status: `
      metadata 1 ListMeta omitempty
      status 2 string omitempty
      message 3 string omitempty
      reason 4 string omitempty
      details 5 *StatusDetails omitempty
      code 6 int32 omitempty`,
    StatusDetails: `
      name 1 string omitempty
      group 2 string omitempty
      kind 3 string omitempty
      uid 6 string omitempty
      causes 4 []StatusCause omitempty
      retryAfterSeconds 5 int32 omitempty`,
    StatusCause: `
      reason 1 string omitempty
      message 2 string omitempty
      field 3 string omitempty`,
    DeleteOptions: `
      gracePeriodSeconds 1 *int64 omitempty
      preconditions 2 *Preconditions omitempty
      orphanDependents 3 *bool omitempty
      propagationPolicy 4 *string omitempty
      dryRun 5 []string omitempty
      ignoreStoreReadErrorWithClusterBreakingPotential 6 *bool omitempty`,
    Preconditions: `
      uid 1 *string omitempty
      resourceVersion 2 *string omitempty`,
    WatchEvent: `
      type 1 string
      object 2 runtime.RawExtension`,
  },
  [PACKAGE_ALIASES.runtime]: {
    RawExtension: { special: 'rawExtension', fields: 'raw 1 []byte' },
    TypeMeta: `
      apiVersion 1 string omitempty
      kind 2 string omitempty`,
    Unknown: `
      typeMeta 1 TypeMeta
      raw 2 []byte
      contentEncoding 3 string
      contentType 4 string`,
  },
};

const parsed = new Map(Object.entries(FACTS).flatMap(([pkg, defs]) => parseTypes(pkg, defs).map((t) => [t.name, t] as const)));

export function fallbackTypeDef(name: string): TypeDef | undefined {
  return parsed.get(name);
}
