import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isRetryableShootFailure } from '../../src/infrastructure/runtime/gardener-errors.js';

const err = (code: string) => [{ description: `failed with ${code}`, codes: [code] }];

test('ERR_INFRA_UNAUTHORIZED is final; quota and rate limits are waited out', () => {
  assert.equal(isRetryableShootFailure(err('ERR_INFRA_UNAUTHORIZED')), false);
  assert.equal(isRetryableShootFailure(err('ERR_CONFIGURATION_PROBLEM')), false);
  assert.equal(isRetryableShootFailure(err('ERR_INFRA_QUOTA_EXCEEDED')), true);
  assert.equal(isRetryableShootFailure(err('ERR_INFRA_RATE_LIMITS_EXCEEDED')), true);
  assert.equal(isRetryableShootFailure(err('ERR_INFRA_RESOURCES_DEPLETED')), true);
});
