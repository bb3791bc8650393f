// Reading nested values of parsed JSON in tests.

/** The value at a dotted path (`spec.template.spec.containers.0.image`), or undefined. */
export function valueAt(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v as Record<string, unknown> | undefined)?.[key], obj);
}
