// Certificate metrics of the runtime watcher, named as upstream's lifecycle manager names them
// (kyma-project/lifecycle-manager internal/pkg/metrics: watcher.go, gatewaysecret.go):
//   lifecycle_mgr_self_signed_cert_not_renew{kyma_name}     1 while a runtime's certificate is overdue
//       for renewal (its renewal time plus the renew buffer passed); the series is removed otherwise
//   lifecycle_mgr_gateway_secret_server_cert_close_to_expiry  1 when the certificate the KCP edge
//       presents to runtimes expires within the expiry window, else 0
import type { Gauge, Registry } from '../runtime/metrics.js';

export const SELF_SIGNED_CERT_NOT_RENEW_METRIC = 'lifecycle_mgr_self_signed_cert_not_renew';
export const GATEWAY_SERVER_CERT_CLOSE_TO_EXPIRY_METRIC = 'lifecycle_mgr_gateway_secret_server_cert_close_to_expiry';

export class WatcherCertificateMetrics {
  private readonly notRenewed: Gauge;
  private readonly serverCertCloseToExpiry: Gauge;

  constructor(registry: Registry) {
    this.notRenewed = registry.gauge({ name: SELF_SIGNED_CERT_NOT_RENEW_METRIC, help: 'Indicates the self-signed Certificate of related Kyma is not renewed yet', labelNames: ['kyma_name'] });
    this.serverCertCloseToExpiry = registry.gauge({ name: GATEWAY_SERVER_CERT_CLOSE_TO_EXPIRY_METRIC, help: 'Indicates whether the server certificate in the gateway secret is close to expiry (1) or not (0)' });
  }

  /** As upstream: a series with 1 while the renewal is overdue, no series once it is renewed. */
  certificateRenewal(kymaName: string, overdue: boolean): void {
    if (overdue) this.notRenewed.set({ kyma_name: kymaName }, 1);
    else this.notRenewed.remove({ kyma_name: kymaName });
  }

  forget(kymaName: string): void {
    this.notRenewed.remove({ kyma_name: kymaName });
  }

  serverCertificate(closeToExpiry: boolean): void {
    this.serverCertCloseToExpiry.set(undefined, closeToExpiry ? 1 : 0);
  }
}
