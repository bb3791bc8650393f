// A watcher CA in memory (no KCP Secret), valid for 90 days from now, for listener and webhook tests.
import { createCertificateAuthority } from '../../src/util/x509.js';
import type { CaState } from '../../src/watcher/certificates.js';

export const DAY = 86_400_000;

export async function testCa(commonName: string): Promise<CaState> {
  const now = Date.now();
  const ca = await createCertificateAuthority({ commonName, notBefore: new Date(now - 60_000), notAfter: new Date(now + 90 * DAY) });
  return { signing: ca, serving: ca, trustedPem: ca.certPem, rotating: false, resourceVersion: '1' };
}
