// Localized images (Manifest.spec.localizedImages): references valid where the module runs
// replace the module's images with the same `<name>:<tag>` (the part after the last `/`), in pod
// containers and in container env values that are image references (as upstream imagerewrite).
import type { KubeObject } from '../../kube/object.js';
import { RenderError } from './errors.js';

interface TargetImage {
  ref: string;
  nameAndTag: string;
}

function parseTargets(localized: readonly string[]): TargetImage[] {
  return localized.map((ref) => {
    const i = ref.lastIndexOf('/');
    if (i < 0) throw new RenderError(`localized image ${ref} is not a valid image reference: missing '/'`);
    return { ref, nameAndTag: ref.slice(i + 1) };
  });
}

/** An env value looks like an image reference of a registry host: `<host with a dot or localhost>/.../<name>:<tag>`. */
function looksLikeImage(value: string, nameAndTag: string): boolean {
  if (!value.endsWith(nameAndTag)) return false;
  const parts = value.split('/');
  return parts.length >= 2 && (parts[0].includes('.') || parts[0].includes('localhost'));
}

type Container = { image?: unknown; env?: { value?: unknown }[] };

function podSpecsOf(obj: KubeObject): Record<string, unknown>[] {
  const spec = obj.spec as Record<string, unknown> | undefined;
  if (!spec) return [];
  if (obj.kind === 'Pod') return [spec];
  const template = (s: Record<string, unknown> | undefined) => (s?.template as { spec?: Record<string, unknown> } | undefined)?.spec;
  const direct = template(spec);
  if (direct) return [direct];
  const job = (spec.jobTemplate as { spec?: Record<string, unknown> } | undefined)?.spec;
  const nested = template(job);
  return nested ? [nested] : [];
}

/** Rewrites images of `objects` in place. */
export function localizeImages(objects: readonly KubeObject[], localized: readonly string[] | undefined): void {
  if (!localized || localized.length === 0) return;
  const targets = parseTargets(localized);
  for (const obj of objects) {
    for (const podSpec of podSpecsOf(obj)) {
      for (const field of ['containers', 'initContainers']) {
        const containers = podSpec[field];
        if (!Array.isArray(containers)) continue;
        for (const c of containers as Container[]) {
          if (typeof c.image === 'string') {
            const image = c.image;
            const t = targets.find((x) => image.endsWith(x.nameAndTag));
            if (t) c.image = t.ref;
          }
          for (const env of c.env ?? []) {
            if (typeof env.value !== 'string') continue;
            const value = env.value;
            const t = targets.find((x) => looksLikeImage(value, x.nameAndTag));
            if (t) env.value = t.ref;
          }
        }
      }
    }
  }
}

/** The env variable that tells a module's containers the runtime image-pull Secret's name (upstream's). */
export const SKR_IMAGE_PULL_SECRET_ENV = 'SKR_IMG_PULL_SECRET';

/**
 * Points Deployments and StatefulSets at the runtime image-pull Secret (upstream's SKR image pull
 * secret transform): `imagePullSecrets` gains it, every container gets `SKR_IMG_PULL_SECRET=<name>`
 * (so operators can pass it on to what they deploy). A container that sets the variable itself is a
 * RenderError: the name is reserved.
 */
export function addImagePullSecret(objects: readonly KubeObject[], secretName: string): void {
  for (const obj of objects) {
    if (obj.kind !== 'Deployment' && obj.kind !== 'StatefulSet') continue;
    const podSpec = podSpecsOf(obj)[0];
    if (!podSpec) continue;
    const pullSecrets = Array.isArray(podSpec.imagePullSecrets) ? (podSpec.imagePullSecrets as { name?: unknown }[]) : [];
    if (!pullSecrets.some((s) => s.name === secretName)) podSpec.imagePullSecrets = [...pullSecrets, { name: secretName }];
    const containers = Array.isArray(podSpec.containers) ? (podSpec.containers as { env?: { name?: unknown; value?: unknown }[] }[]) : [];
    for (const c of containers) {
      if (c.env?.some((e) => e.name === SKR_IMAGE_PULL_SECRET_ENV)) throw new RenderError(`${obj.kind} ${obj.metadata.name ?? ''}: the ${SKR_IMAGE_PULL_SECRET_ENV} environment variable already exists in the raw manifest`);
      c.env = [...(c.env ?? []), { name: SKR_IMAGE_PULL_SECRET_ENV, value: secretName }];
    }
  }
}
