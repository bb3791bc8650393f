// A Logger that keeps what the code under test logs, so that a test can prove a controller looked
// at an object and decided to leave it alone (the positive control of a "nothing happened" check).
// It is the runtime's own JSON logger with a sink that keeps the records.
import { createLogger, type LogFields, type Logger, type LogLevel } from '../../src/runtime/log.js';

export interface LogRecord {
  level: LogLevel;
  /** The logger's name (children add `.suffix`). */
  logger: string;
  msg: string;
  fields: LogFields;
}

export class RecordingLogger implements Logger {
  /** Shared by this logger and all its children. */
  readonly records: LogRecord[] = [];
  private readonly inner: Logger;

  /** `level`: the least severe level kept (default debug: everything). */
  constructor(level: LogLevel = 'debug') {
    this.inner = createLogger({
      level,
      format: 'json',
      sink: (line) => {
        const { level: lineLevel, logger, msg, time: _time, ...fields } = JSON.parse(line) as { level: LogLevel; logger: string; msg: string; time: string } & LogFields;
        this.records.push({ level: lineLevel, logger, msg, fields });
      },
    });
  }

  get name(): string {
    return this.inner.name;
  }
  enabled(level: LogLevel): boolean {
    return this.inner.enabled(level);
  }
  debug(msg: string, fields?: LogFields): void {
    this.inner.debug(msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    this.inner.info(msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    this.inner.warn(msg, fields);
  }
  error(msg: string, fields?: LogFields): void {
    this.inner.error(msg, fields);
  }
  child(suffix?: string, fields?: LogFields): Logger {
    return this.inner.child(suffix, fields);
  }

  /** Records whose message matches `msg` (a substring or a pattern) and whose fields include `fields`. */
  matching(msg: string | RegExp, fields: LogFields = {}): LogRecord[] {
    return this.records.filter(
      (r) => (typeof msg === 'string' ? r.msg.includes(msg) : msg.test(r.msg)) && Object.entries(fields).every(([k, v]) => r.fields[k] === v),
    );
  }
}
