// The landscape's log file: lines (JSON or text) appended to `<data-dir>/kcp.log`. With the landscape in a
// process of its own (process.ts), the controllers' process opens the same file: both append whole
// lines (O_APPEND), so they interleave by line and never within one.
import { createWriteStream } from 'node:fs';
import { createLogger, type Logger, type LogFormat, type LogLevel, type LogSink } from '../runtime/log.js';

export interface LogFile {
  logger: Logger;
  /** Flushes and closes the file. */
  close(): Promise<void>;
}

export function openLogFile(path: string, opts: { level?: LogLevel; format?: LogFormat; echo?: LogSink } = {}): LogFile {
  const stream = createWriteStream(path, { flags: 'a' });
  const logger = createLogger({
    name: 'kcp',
    level: opts.level ?? 'info',
    format: opts.format,
    sink: (line) => {
      stream.write(`${line}\n`);
      opts.echo?.(line);
    },
  });
  let closing: Promise<void> | undefined;
  return { logger, close: () => (closing ??= new Promise<void>((resolve) => stream.end(() => resolve()))) };
}
