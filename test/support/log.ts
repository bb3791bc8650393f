// A Logger that keeps what the code under test logs, so that a test can prove a controller looked
// at an object and decided to leave it alone (the positive control of a "nothing happened" check).
import type { LogFields, Logger, LogLevel } from '../../src/runtime/log.js';

export interface LogRecord {
  level: LogLevel;
  /** The logger's name (children add `.suffix`). */
  logger: string;
  msg: string;
  fields: LogFields;
}

export class RecordingLogger implements Logger {
  constructor(
    readonly name = '',
    private readonly bound: LogFields = {},
    /** Shared by a logger and all its children. */
    readonly records: LogRecord[] = [],
  ) {}

  enabled(_level: LogLevel): boolean {
    return true;
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
    return new RecordingLogger(name, fields ? { ...this.bound, ...fields } : this.bound, this.records);
  }

  /** Records whose message matches `msg` (a substring or a pattern) and whose fields include `fields`. */
  matching(msg: string | RegExp, fields: LogFields = {}): LogRecord[] {
    return this.records.filter(
      (r) => (typeof msg === 'string' ? r.msg.includes(msg) : msg.test(r.msg)) && Object.entries(fields).every(([k, v]) => r.fields[k] === v),
    );
  }

  private write(level: LogLevel, msg: string, fields: LogFields | undefined): void {
    this.records.push({ level, logger: this.name, msg, fields: { ...this.bound, ...fields } });
  }
}
