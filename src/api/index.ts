// Every kind of the control plane's APIs, in the order docs/api.md lists them.
import { gardenerKinds } from './gardener/index.js';
import { infrastructureKinds } from './infrastructuremanager/index.js';
import { operatorKinds } from './operator/index.js';
import type { AnyKind } from './render.js';

/** Kinds the control plane owns (installed into the KCP). */
export const controlPlaneKinds: AnyKind[] = [...infrastructureKinds, ...operatorKinds] as AnyKind[];

/** Kinds of Gardener the control plane consumes (installed into the embedded garden cluster). */
export const consumedKinds: AnyKind[] = [...gardenerKinds] as AnyKind[];

export const allKinds: AnyKind[] = [...controlPlaneKinds, ...consumedKinds];
