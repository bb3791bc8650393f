// Benchmarks print every setting that differs from production, next to their figures.

/** Prints each deviation from the production defaults, one per line. */
export function printSettings(deviations: Record<string, unknown>): void {
  console.log('settings that differ from production:');
  for (const [name, value] of Object.entries(deviations)) console.log(`  ${name}: ${JSON.stringify(value)}`);
}
