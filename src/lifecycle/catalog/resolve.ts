// Which ModuleTemplate a Kyma's module resolves to: a pinned `version` names `<module>-<version>`;
// otherwise the channel (module's, else the Kyma's, else `regular`) is looked up in the module's
// ModuleReleaseMeta (`spec.channels`) and its version names the template. Beta and internal
// module versions resolve only for Kymas labelled for them. Messages are upstream's
// (pkg/templatelookup), so tools matching them keep working.
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
import { labelSelectorFromObject, matchesLabels } from '../../kube/labels.js';

/** Reads of the KCP catalog (served from informer caches). */
export interface CatalogView {
  releaseMeta(moduleName: string): ModuleReleaseMetaObject | undefined;
  template(name: string): ModuleTemplateObject | undefined;
  /** Upstream's restricted modules (`--restricted-modules`): offered only to Kymas their ModuleReleaseMeta's `spec.kymaSelector` selects. */
  restrictedModules?: ReadonlySet<string>;
}

export interface Resolved {
  template: ModuleTemplateObject;
  version: string;
  /** The channel it was resolved from; undefined for a pinned version. */
  channel: string | undefined;
  fqdn: string;
}

/** `Restricted`: a restricted module whose ModuleReleaseMeta does not select the Kyma (it is uninstalled). */
export type ResolveFailure = 'ModuleNotFound' | 'ChannelNotFound' | 'TemplateNotFound' | 'NotOffered' | 'Restricted';

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
  return notOfferedBecause(kyma, flags) === undefined;
}

/** Why a module version is not offered to a Kyma (upstream's order: internal first), or undefined. */
function notOfferedBecause(kyma: Pick<KymaObject, 'metadata'>, flags: { beta?: boolean; internal?: boolean }): 'internal module' | 'beta module' | undefined {
  const labels = kyma.metadata.labels;
  if (flags.internal && !isEnabled(labels?.[Labels.Internal])) return 'internal module';
  if (flags.beta && !isEnabled(labels?.[Labels.Beta])) return 'beta module';
  return undefined;
}

/**
 * Upstream's restricted-module rule (templatelookup validateTemplateMode): a module in the restricted
 * list needs a `spec.kymaSelector` selecting the Kyma; a module outside it must have none. A nil or
 * empty selector selects nothing. Returns why the module is not allowed, or undefined.
 */
export function restrictionOf(restricted: ReadonlySet<string> | undefined, kyma: Pick<KymaObject, 'metadata'>, meta: ModuleReleaseMetaObject | undefined): { reason: 'NotOffered' | 'Restricted'; why: string } | undefined {
  if (!meta) return undefined;
  const selector = meta.spec.kymaSelector;
  const listed = restricted?.has(meta.spec.moduleName) ?? false;
  if (!listed) return selector ? { reason: 'NotOffered', why: 'module has kymaSelector but is not in restricted modules list' } : undefined;
  if (!selector) return { reason: 'NotOffered', why: '' };
  // An unknown operator selects nothing.
  const requirements = labelSelectorFromObject(selector) ?? [];
  if (requirements.length === 0 || !matchesLabels(requirements, kyma.metadata.labels)) return { reason: 'Restricted', why: 'restricted module not allowed for this Kyma' };
  return undefined;
}

/** Upstream's message for a template the Kyma may not use (ErrTemplateNotAllowed). */
function checkOffered(catalog: CatalogView, kyma: KymaObject, meta: ModuleReleaseMetaObject | undefined, template: ModuleTemplateObject): void {
  const why = notOfferedBecause(kyma, moduleFlags(meta, template));
  if (why) throw new ResolveError('NotOffered', `module template not allowed: ${why}`);
  const restriction = restrictionOf(catalog.restrictedModules, kyma, meta);
  if (restriction) throw new ResolveError(restriction.reason, `module template not allowed${restriction.why ? `: ${restriction.why}` : ''}`);
}

/** Upstream's message for a channel or pinned version whose ModuleTemplate does not exist. */
function templateNotFound(name: string): ResolveError {
  return new ResolveError('TemplateNotFound', `failed to get module template: ModuleTemplate.operator.kyma-project.io "${name}" not found`);
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
    if (!template) throw templateNotFound(name);
    checkOffered(catalog, kyma, meta, template);
    return { template, version: module.version, channel: undefined, fqdn: fqdnOf(meta, template, module.name) };
  }
  const channel = channelOf(kyma, module);
  if (!meta || !meta.spec.channels) throw new ResolveError('ModuleNotFound', `no ModuleReleaseMeta found for module "${module.name}" in namespace "${kyma.metadata.namespace ?? ''}"`);
  const assignment = meta.spec.channels.find((c) => c.channel === channel);
  if (!assignment) throw new ResolveError('ChannelNotFound', `module ${module.name} is not offered in channel ${channel}`);
  const name = templateName(module.name, assignment.version);
  const template = catalog.template(name);
  if (!template) throw templateNotFound(name);
  checkOffered(catalog, kyma, meta, template);
  return { template, version: assignment.version, channel, fqdn: fqdnOf(meta, template, module.name) };
}
