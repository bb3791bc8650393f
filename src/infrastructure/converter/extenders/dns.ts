// `spec.dns` and the shoot-dns-service extension: an external DNS provider from the configuration,
// or Gardener's internal DNS when none is configured (upstream extender/extensions/dns.go).
import { isGardenerInternalDns } from '../config.js';
import { cloneJson, type ConversionInput, type RawConfig, type ShootExtension, type ShootSpec } from '../types.js';

export const DNSExtensionType = 'shoot-dns-service';
export const DNS_EXTENSION_API_VERSION = 'service.dns.extensions.gardener.cloud/v1alpha1';

/** The cluster's external domain: `<shoot name>.<domain prefix>`. */
export function shootDomain({ runtime, config }: ConversionInput): string {
  return `${runtime.spec.shoot.name}.${config.dns.domainPrefix}`;
}

/** `spec.dns`; the domain is immutable, so a patch keeps what the Shoot has. */
export function dns(input: ConversionInput): ShootSpec['dns'] {
  if (input.existing?.spec.dns) return cloneJson(input.existing.spec.dns);
  if (isGardenerInternalDns(input.config)) return undefined;
  const domain = shootDomain(input);
  const { secretName, providerType } = input.config.dns;
  return { domain, providers: [{ domains: { include: [domain] }, primary: true, secretName, type: providerType }] };
}

export function dnsExtension(input: ConversionInput): ShootExtension {
  const providerConfig: RawConfig = { apiVersion: DNS_EXTENSION_API_VERSION, kind: 'DNSConfig', dnsProviderReplication: { enabled: true } };
  if (!isGardenerInternalDns(input.config)) {
    const domain = shootDomain(input);
    providerConfig.syncProvidersFromShootSpecDNS = true;
    providerConfig.providers = [{ domains: { include: [domain] }, secretName: input.config.dns.secretName, type: input.config.dns.providerType }];
  }
  return { type: DNSExtensionType, providerConfig };
}
