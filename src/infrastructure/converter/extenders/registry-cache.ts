// The registry-cache extension (upstream extender/extensions/registry_config.go): Gardener's
// `registry-cache` extension with a `registry.extensions.gardener.cloud/v1alpha3` RegistryConfig, one
// cache per entry of the Runtime's `spec.imageRegistryCache` (copied there from the runtime's
// RegistryCacheConfig resources by the registry cache controller, src/infrastructure/registry-cache).
// When the Runtime has no caches left and the Shoot has the extension, it is disabled rather than
// dropped, so that Gardener removes the caches from the cluster; its secret references go with it.
import { cloneJson, type ConversionInput, type RawConfig, type ShootExtension } from '../types.js';

export const RegistryCacheExtensionType = 'registry-cache';

/** The fields of a RegistryCacheConfig spec that go into the extension's cache (as upstream maps them). */
const cacheFields = ['upstream', 'remoteURL', 'volume', 'garbageCollection', 'secretReferenceName', 'proxy'] as const;

function toCache(config: Record<string, unknown>): RawConfig {
  const out: RawConfig = {};
  for (const f of cacheFields) if (config[f] !== undefined && config[f] !== null) out[f] = cloneJson(config[f]);
  return out;
}

export function registryCacheExtension({ runtime, existing }: ConversionInput): ShootExtension | undefined {
  const caches = runtime.spec.imageRegistryCache ?? [];
  if (caches.length > 0) {
    return {
      type: RegistryCacheExtensionType,
      disabled: false,
      providerConfig: { apiVersion: 'registry.extensions.gardener.cloud/v1alpha3', kind: 'RegistryConfig', caches: caches.map((c) => toCache(c.config)) },
    };
  }
  const live = existing?.spec.extensions?.find((e) => e.type === RegistryCacheExtensionType);
  if (!live) return undefined;
  const providerConfig = cloneJson(live.providerConfig ?? {}) as RawConfig;
  if (Array.isArray(providerConfig.caches)) {
    for (const c of providerConfig.caches as RawConfig[]) delete c.secretReferenceName;
  }
  return { type: RegistryCacheExtensionType, disabled: true, providerConfig };
}
