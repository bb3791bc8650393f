// Structured logs: one record per line with level, time, logger name, msg and fields, as JSON (the
// default, what log pipelines read) or as text for people (`--log-format text`).
// A child logger binds a name suffix and/or fields (e.g. `controller`, `namespace`, `name`).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** `json`: one JSON object per line; `text`: `<time> <LEVEL> <logger>  <msg>  key=value ...`. */
export type LogFormat = 'json' | 'text';

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];

const severity: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type LogFields = Record<string, unknown>;

/** Where log lines go (default: stderr). One call per line, without the trailing newline. */
export type LogSink = (line: string) => void;

export interface LoggerOptions {
  name?: string;
  /** Default: $LOG_LEVEL, else info. */
  level?: LogLevel;
  /** Default: $LOG_FORMAT, else json. */
  format?: LogFormat;
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

type Render = (level: LogLevel, time: string, logger: string, msg: string, fields: LogFields) => string;

const renderJson: Render = (level, time, logger, msg, fields) => {
  const record = { level, time, logger, msg, ...fields };
  try {
    return JSON.stringify(record, toJsonValue);
  } catch {
    // Cyclic or otherwise unserializable fields: keep the message.
    return JSON.stringify({ level, time, logger, msg, fieldsError: 'unserializable fields' });
  }
};

const LEVEL_TEXT: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO ', warn: 'WARN ', error: 'ERROR' };

/** A bare word stays as it is; anything with spaces, quotes, `=` or control characters is quoted. */
const BARE = /^[^\s"'=\\\p{Cc}]+$/u;

function textValue(value: unknown): string | undefined {
  if (value === undefined) return undefined; // as JSON.stringify leaves it out
  if (value instanceof Error) return quoted(value.message);
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'function':
    case 'symbol':
      return undefined;
    default:
      try {
        // Objects and arrays stay compact JSON (one token unless a string inside holds a space).
        return JSON.stringify(value, toJsonValue) ?? 'null';
      } catch {
        return '"<unserializable>"';
      }
  }
}

function quoted(s: string): string {
  return BARE.test(s) ? s : JSON.stringify(s);
}

const renderText: Render = (level, time, logger, msg, fields) => {
  let line = `${time} ${LEVEL_TEXT[level]} ${logger ? `${logger}  ` : ''}${msg.replace(/[\r\n]+/g, ' ')}`;
  let sep = '  ';
  for (const key in fields) {
    const v = textValue(fields[key]);
    if (v === undefined) continue;
    line += `${sep}${key}=${v}`;
    sep = ' ';
  }
  return line;
};

class StructuredLogger implements Logger {
  constructor(
    readonly name: string,
    private readonly minLevel: number,
    private readonly render: Render,
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
    return new StructuredLogger(name, this.minLevel, this.render, this.sink, fields ? { ...this.bound, ...fields } : this.bound);
  }

  private write(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    if (severity[level] < this.minLevel) return;
    this.sink(this.render(level, new Date().toISOString(), this.name, msg, fields ? { ...this.bound, ...fields } : this.bound));
  }
}

/** The level LOG_LEVEL names, or undefined. */
export function parseLogLevel(v: string | undefined): LogLevel | undefined {
  return (LOG_LEVELS as readonly (string | undefined)[]).includes(v) ? (v as LogLevel) : undefined;
}

/** The format LOG_FORMAT names, or undefined. */
export function parseLogFormat(v: string | undefined): LogFormat | undefined {
  return (LOG_FORMATS as readonly (string | undefined)[]).includes(v) ? (v as LogFormat) : undefined;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? parseLogLevel(process.env.LOG_LEVEL) ?? 'info';
  const format = opts.format ?? parseLogFormat(process.env.LOG_FORMAT) ?? 'json';
  return new StructuredLogger(opts.name ?? '', severity[level], format === 'text' ? renderText : renderJson, opts.sink ?? defaultSink, opts.fields ?? {});
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = createLogger({ level: 'error', sink: () => undefined });
