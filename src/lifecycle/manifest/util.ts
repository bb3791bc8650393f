// Small helpers of the Manifest controller: error text.

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
