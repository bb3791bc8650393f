// `spec.networking`: plugin and the three networks, copied from the Runtime.
import type { ConversionInput, ShootSpec } from '../types.js';

/** Network plugin when the Runtime names none (Gardener requires one). */
export const DefaultNetworkingType = 'calico';

export function networking({ runtime, config }: ConversionInput): NonNullable<ShootSpec['networking']> {
  const n = runtime.spec.shoot.networking;
  const out: NonNullable<ShootSpec['networking']> = { type: n.type ?? DefaultNetworkingType, nodes: n.nodes, pods: n.pods, services: n.services };
  if (config.networking.enableDualStackIP && n.dualStack === true) out.ipFamilies = ['IPv4', 'IPv6'];
  return out;
}
