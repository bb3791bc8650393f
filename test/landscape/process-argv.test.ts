// The landscape child's Node options: its own V8 flags first, then the parent's, without what
// would make the child something else than the landscape (code given with -e/-p would run instead
// of its entry and fork again; a second inspector on the parent's port; the test runner).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { childExecArgv, LANDSCAPE_V8_FLAGS } from '../../src/landscape/process.js';

describe('landscape process: the child\'s Node options', () => {
  it('puts the landscape\'s V8 flags first and keeps the parent\'s other flags after them (so they win)', () => {
    assert.deepEqual(childExecArgv(['--trace-gc', '--max-semi-space-size=16']), [...LANDSCAPE_V8_FLAGS, '--trace-gc', '--max-semi-space-size=16']);
  });

  it('drops code given with -e, -p, --eval and --print, with their value', () => {
    assert.deepEqual(childExecArgv(['-e', 'fork()', '--trace-gc']), [...LANDSCAPE_V8_FLAGS, '--trace-gc']);
    assert.deepEqual(childExecArgv(['-p', '1+1']), LANDSCAPE_V8_FLAGS);
    assert.deepEqual(childExecArgv(['--eval', 'x', '--print=y', '--eval=z']), LANDSCAPE_V8_FLAGS);
  });

  it('drops inspector and test-runner options', () => {
    assert.deepEqual(childExecArgv(['--inspect=9229', '--test', '--test-reporter=spec', '--enable-source-maps']), [...LANDSCAPE_V8_FLAGS, '--enable-source-maps']);
  });
});
