// The logger: JSON lines as before (byte for byte), the text format for people, levels, child
// loggers and LOG_LEVEL / LOG_FORMAT.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { createLogger, type LoggerOptions } from '../../src/runtime/log.js';

function capture(opts: LoggerOptions): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, log: createLogger({ ...opts, sink: (l) => lines.push(l) }) };
}

/** The time stamp varies: replace it with a fixed one. */
const fixTime = (line: string) => line.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/, 'T');

describe('logger', () => {
  const env = { level: process.env.LOG_LEVEL, format: process.env.LOG_FORMAT };
  afterEach(() => {
    for (const [k, v] of [['LOG_LEVEL', env.level], ['LOG_FORMAT', env.format]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('writes JSON lines by default: level, time, logger, msg, bound then given fields; errors as objects', () => {
    delete process.env.LOG_FORMAT;
    const { lines, log } = capture({ name: 'kcp', level: 'debug' });
    const err = Object.assign(new Error('no route'), { reason: 'Unreachable' });
    log.child('kyma', { controller: 'kyma' }).warn('runtime unreachable', { kyma: 'k1', error: err, n: 2n, gone: undefined });
    assert.equal(
      fixTime(lines[0] ?? ''),
      '{"level":"warn","time":"T","logger":"kcp.kyma","msg":"runtime unreachable","controller":"kyma","kyma":"k1","error":{"name":"Error","message":"no route","reason":"Unreachable"},"n":"2"}',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    log.info('cyclic', { cyclic });
    assert.equal(fixTime(lines[1] ?? ''), '{"level":"info","time":"T","logger":"kcp","msg":"cyclic","fieldsError":"unserializable fields"}');
  });

  it('writes one readable line per record in the text format', () => {
    const { lines, log } = capture({ name: 'kcp', format: 'text', level: 'debug' });
    const runtime = log.child('infrastructure-manager.runtime', { runtime: 'kcp-system/r1' });
    runtime.warn('provisioning failed', {
      shoot: 'c-abc',
      reason: 'ERR_INFRA_UNAUTHORIZED: the credentials were refused',
      error: new Error('line one\nline two'),
      retries: 3,
      ok: false,
      empty: '',
      modules: ['functions', 'gateway'],
      skipped: undefined,
    });
    runtime.error('multi\nline message');
    log.debug('no fields');
    assert.deepEqual(lines.map(fixTime), [
      'T WARN  kcp.infrastructure-manager.runtime  provisioning failed  runtime=kcp-system/r1 shoot=c-abc reason="ERR_INFRA_UNAUTHORIZED: the credentials were refused" error="line one\\nline two" retries=3 ok=false empty="" modules=["functions","gateway"]',
      'T ERROR kcp.infrastructure-manager.runtime  multi line message  runtime=kcp-system/r1',
      'T DEBUG kcp  no fields',
    ]);
    assert.match(lines[0] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z WARN /);
  });

  it('quotes values with spaces, quotes, = or control characters, and survives cyclic fields', () => {
    const { lines, log } = capture({ format: 'text' });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    log.info('m', { a: 'x=y', b: 'say "hi"', c: 'tab\there', d: 'plain-word/with:chars', cyclic });
    assert.equal(fixTime(lines[0] ?? ''), 'T INFO  m  a="x=y" b="say \\"hi\\"" c="tab\\there" d=plain-word/with:chars cyclic="<unserializable>"');
  });

  it('drops records below the level, in both formats', () => {
    for (const format of ['json', 'text'] as const) {
      const { lines, log } = capture({ level: 'warn', format });
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
      assert.equal(lines.length, 2, format);
      assert.equal(log.enabled('info'), false);
      assert.equal(log.enabled('error'), true);
    }
  });

  it('takes the level and the format from LOG_LEVEL and LOG_FORMAT unless given, and ignores unknown values', () => {
    process.env.LOG_LEVEL = 'debug';
    process.env.LOG_FORMAT = 'text';
    const fromEnv = capture({ name: 'x' });
    fromEnv.log.debug('hello');
    assert.match(fromEnv.lines[0] ?? '', /^\S+ DEBUG x {2}hello$/);
    const given = capture({ name: 'x', level: 'info', format: 'json' });
    given.log.debug('dropped');
    given.log.info('kept');
    assert.equal(given.lines.length, 1);
    assert.equal((JSON.parse(given.lines[0] ?? '') as { msg: string }).msg, 'kept');
    process.env.LOG_LEVEL = 'loud';
    process.env.LOG_FORMAT = 'xml';
    const fallback = capture({});
    fallback.log.debug('dropped');
    fallback.log.info('kept');
    assert.equal(fallback.lines.length, 1);
    assert.equal((JSON.parse(fallback.lines[0] ?? '') as { level: string }).level, 'info');
  });
});
