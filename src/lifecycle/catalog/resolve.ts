// Which ModuleTemplate a Kyma's module resolves to: a pinned `version` names `<module>-<version>`;
// otherwise the channel (module's, else the Kyma's, else `regular`) is looked up in the module's
// ModuleReleaseMeta (`spec.channels`) and its version names the template. Beta and internal
// modules resolve only for Kymas labelled for them.
import {
  Annotations,
  DEFAULT_CHANNEL,
  isEnabled,
  Labels,
  type KymaModule,
  type KymaObject,
  type ModuleReleaseMetaObject,
  type ModuleTemplateObject,
} from '../../api/operator/index.js';

/** Reads of the KCP catalog (served from informer caches). */
export interface CatalogView {
  releaseMeta(moduleName: string): ModuleReleaseMetaObject | undefined;
  template(name: string): ModuleTemplateObject | undefined;
}

export interface Resolved {
  template: ModuleTemplateObject;
  version: string;
  /** The channel it was resolved from; undefined for a pinned version. */
  channel: string | undefined;
  fqdn: string;
}

export type ResolveFailure = 'ModuleNotFound' | 'ChannelNotFound' | 'TemplateNotFound' | 'NotOffered';

export class ResolveError extends Error {
  constructor(
    readonly reason: ResolveFailure,
    message: string,
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

export function templateName(moduleName: string, version: string): string {
  return `${moduleName}-${version}`;
}

/** Whether a Kyma may see a module: beta/internal modules only for Kymas labelled for them. */
export function offeredTo(kyma: Pick<KymaObject, 'metadata'>, flags: { beta?: boolean; internal?: boolean }): boolean {
  const labels = kyma.metadata.labels;
  if (flags.beta && !isEnabled(labels?.[Labels.Beta])) return false;
  if (flags.internal && !isEnabled(labels?.[Labels.Internal])) return false;
  return true;
}

/** Beta/internal flags of a module: its ModuleReleaseMeta's, or the template's legacy labels. */
export function moduleFlags(meta: ModuleReleaseMetaObject | undefined, template: ModuleTemplateObject | undefined): { beta: boolean; internal: boolean } {
  const labels = template?.metadata.labels;
  return {
    beta: meta?.spec.beta === true || isEnabled(labels?.[Labels.Beta]),
    internal: meta?.spec.internal === true || isEnabled(labels?.[Labels.Internal]),
  };
}

export function fqdnOf(meta: ModuleReleaseMetaObject | undefined, template: ModuleTemplateObject, moduleName: string): string {
  return meta?.spec.ocmComponentName ?? template.metadata.annotations?.[Annotations.FQDN] ?? `kyma-project.io/module/${moduleName}`;
}

export function channelOf(kyma: KymaObject, module: KymaModule): string {
  return module.channel ?? kyma.spec.channel ?? DEFAULT_CHANNEL;
}

export function resolveModule(catalog: CatalogView, kyma: KymaObject, module: KymaModule): Resolved {
  const meta = catalog.releaseMeta(module.name);
  if (module.version) {
    const name = templateName(module.name, module.version);
    const template = catalog.template(name);
    if (!template) throw new ResolveError('TemplateNotFound', `module ${module.name}: no ModuleTemplate ${name} for the pinned version ${module.version}`);
    if (!offeredTo(kyma, moduleFlags(meta, template))) throw new ResolveError('NotOffered', `module ${module.name} is beta or internal and not offered to this Kyma`);
    return { template, version: module.version, channel: undefined, fqdn: fqdnOf(meta, template, module.name) };
  }
  const channel = channelOf(kyma, module);
  if (!meta || !meta.spec.channels) throw new ResolveError('ModuleNotFound', `module ${module.name}: no ModuleReleaseMeta with channels`);
  const assignment = meta.spec.channels.find((c) => c.channel === channel);
  if (!assignment) throw new ResolveError('ChannelNotFound', `module ${module.name} is not offered in channel ${channel}`);
  const name = templateName(module.name, assignment.version);
  const template = catalog.template(name);
  if (!template) throw new ResolveError('TemplateNotFound', `module ${module.name}: channel ${channel} names version ${assignment.version}, but ModuleTemplate ${name} does not exist`);
  if (!offeredTo(kyma, moduleFlags(meta, template))) throw new ResolveError('NotOffered', `module ${module.name} is beta or internal and not offered to this Kyma`);
  return { template, version: assignment.version, channel, fqdn: fqdnOf(meta, template, module.name) };
}
