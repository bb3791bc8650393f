// Whether a module upgrade waits for the runtime's maintenance window (upstream's
// internal/maintenancewindows and the lookup decorator of moduletemplateinfolookup):
// - required when the new version's ModuleTemplate has `spec.requiresDowntime`, the Kyma does not set
//   `spec.skipMaintenanceWindows`, and the module is installed in another version (an initial
//   installation never waits);
// - active when the policy's window for the Kyma (matched on its region, plan, global account and
//   platform region labels) has begun and still lasts at least the minimum window size.
import { Labels, type KymaObject, type ModuleTemplateObject } from '../../api/operator/index.js';
import { type MaintenanceRuntime, type MaintenanceWindowPolicy, resolveWindow } from './policy.js';

/** Upstream's messages: the module entry's message while waiting, and the cause of an Error. */
export const MaintenanceMessages = {
  Waiting: 'waiting for next maintenance window to update module version',
  Unknown: 'failed to determine if maintenance window is active',
  NoPolicy: 'no maintenance window policy configured',
  NoWindow: 'matches and defaults also failed to provide a window',
} as const;

/** Upstream's `--min-maintenance-window-size` default: a window must last this much longer to be used. */
export const DEFAULT_MIN_MAINTENANCE_WINDOW_MS = 20 * 60_000;

export class MaintenanceWindowUnknownError extends Error {
  override name = 'MaintenanceWindowUnknownError';
  constructor(cause: string) {
    super(`${MaintenanceMessages.Unknown}: ${cause}`);
  }
}

export class MaintenanceWindows {
  constructor(
    private readonly policy: MaintenanceWindowPolicy | undefined,
    private readonly minDurationMs = DEFAULT_MIN_MAINTENANCE_WINDOW_MS,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Whether installing `version` of `template` into the Kyma's runtime must wait for a window;
   * `installedVersion` is the module's version in the Kyma's status.
   */
  isRequired(template: ModuleTemplateObject, version: string, kyma: KymaObject, installedVersion: string | undefined): boolean {
    if (!template.spec.requiresDowntime) return false;
    if (kyma.spec.skipMaintenanceWindows) return false;
    if (installedVersion === undefined) return false;
    return installedVersion !== version;
  }

  /** Whether the Kyma's maintenance window is open now; MaintenanceWindowUnknownError without a policy or a window. */
  isActive(kyma: KymaObject): boolean {
    if (!this.policy) throw new MaintenanceWindowUnknownError(MaintenanceMessages.NoPolicy);
    const now = this.now();
    const window = resolveWindow(this.policy, runtimeOf(kyma), { now, ongoing: true, minDurationMs: this.minDurationMs });
    if (!window) throw new MaintenanceWindowUnknownError(MaintenanceMessages.NoWindow);
    return now > window.begin && now < window.end;
  }
}

function runtimeOf(kyma: KymaObject): MaintenanceRuntime {
  const labels = kyma.metadata.labels ?? {};
  return { globalAccountID: labels[Labels.GlobalAccountID], plan: labels[Labels.Plan], region: labels[Labels.Region], platformRegion: labels[Labels.PlatformRegion] };
}
