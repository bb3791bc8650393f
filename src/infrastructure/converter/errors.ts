// Errors of the converter, as values a caller can branch on.

/**
 * The Runtime cannot be turned into a Shoot (unknown provider, a zone outside the region, a node
 * network that cannot be split into zone subnets, ...). The Runtime controller reports it as condition
 * reason `ConversionErr`, naming `field`.
 */
export class ConversionError extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'ConversionError';
    this.field = field;
  }
}

/** The converter configuration is invalid; `field` is the JSON path of the offending setting. */
export class ConverterConfigError extends Error {
  readonly field: string;

  constructor(field: string, message: string) {
    super(`converter config ${field}: ${message}`);
    this.name = 'ConverterConfigError';
    this.field = field;
  }
}

export function isConversionError(err: unknown): err is ConversionError {
  return err instanceof ConversionError;
}
