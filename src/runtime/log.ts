// Structured logs: one JSON object per line with level, time, logger name, msg and fields.
// A child logger binds a name suffix and/or fields (e.g. `controller`, `namespace`, `name`).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const severity: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/** Where log lines go (default: stderr). One call per line, without the trailing newline. */
export type LogSink = (line: string) => void;

export interface LoggerOptions {
  name?: string;
  level?: LogLevel;
  sink?: LogSink;
  fields?: LogFields;
}

export interface Logger {
  readonly name: string;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  enabled(level: LogLevel): boolean;
  /** A logger named `<name>.<suffix>` (or the same name without a suffix) with extra bound fields. */
  child(suffix?: string, fields?: LogFields): Logger;
}

const defaultSink: LogSink = (line) => {
  process.stderr.write(line + '\n');
};

/** Errors become `{ name, message, reason?, code? }` so that they survive JSON.stringify. */
function toJsonValue(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    const extra = value as Error & { reason?: unknown; code?: unknown };
    if (extra.reason !== undefined) out.reason = extra.reason;
    if (extra.code !== undefined) out.code = extra.code;
    return out;
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

class JsonLogger implements Logger {
  constructor(
    readonly name: string,
    private readonly minLevel: number,
    private readonly sink: LogSink,
    private readonly bound: LogFields,
  ) {}

  enabled(level: LogLevel): boolean {
    return severity[level] >= this.minLevel;
  }

  debug(msg: string, fields?: LogFields): void {
    this.write('debug', msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.write('info', msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.write('warn', msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.write('error', msg, fields);
  }

  child(suffix?: string, fields?: LogFields): Logger {
    const name = suffix ? (this.name ? `${this.name}.${suffix}` : suffix) : this.name;
    return new JsonLogger(name, this.minLevel, this.sink, fields ? { ...this.bound, ...fields } : this.bound);
  }

  private write(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    if (severity[level] < this.minLevel) return;
    const record = { level, time: new Date().toISOString(), logger: this.name, msg, ...this.bound, ...fields };
    let line: string;
    try {
      line = JSON.stringify(record, toJsonValue);
    } catch {
      // Cyclic or otherwise unserializable fields: keep the message.
      line = JSON.stringify({ level, time: record.time, logger: this.name, msg, fieldsError: 'unserializable fields' });
    }
    this.sink(line);
  }
}

function levelFromEnv(): LogLevel {
  const v = process.env.LOG_LEVEL;
  return v === 'debug' || v === 'info' || v === 'warn' || v === 'error' ? v : 'info';
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  return new JsonLogger(opts.name ?? '', severity[opts.level ?? levelFromEnv()], opts.sink ?? defaultSink, opts.fields ?? {});
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger({ level: 'error', sink: () => undefined });
