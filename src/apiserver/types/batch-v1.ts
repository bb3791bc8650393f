// k8s.io/api batch/v1 (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.batch;

definePackage(pkg, {
  Job: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 JobSpec omitempty
    status 3 JobStatus omitempty`,
  JobList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Job`,
  PodFailurePolicyOnExitCodesRequirement: `
    containerName 1 *string omitempty
    operator 2 string
    values 3 []int32`,
  PodFailurePolicyOnPodConditionsPattern: `
    type 1 string
    status 2 string`,
  PodFailurePolicyRule: `
    action 1 string
    onExitCodes 2 *PodFailurePolicyOnExitCodesRequirement omitempty
    onPodConditions 3 []PodFailurePolicyOnPodConditionsPattern omitempty`,
  PodFailurePolicy: `
    rules 1 []PodFailurePolicyRule`,
  SuccessPolicy: `
    rules 1 []SuccessPolicyRule`,
  SuccessPolicyRule: `
    succeededIndexes 1 *string omitempty
    succeededCount 2 *int32 omitempty`,
  JobSpec: `
    parallelism 1 *int32 omitempty
    completions 2 *int32 omitempty
    activeDeadlineSeconds 3 *int64 omitempty
    podFailurePolicy 11 *PodFailurePolicy omitempty
    successPolicy 16 *SuccessPolicy omitempty
    backoffLimit 7 *int32 omitempty
    backoffLimitPerIndex 12 *int32 omitempty
    maxFailedIndexes 13 *int32 omitempty
    selector 4 *meta.LabelSelector omitempty
    manualSelector 5 *bool omitempty
    template 6 core.PodTemplateSpec
    ttlSecondsAfterFinished 8 *int32 omitempty
    completionMode 9 *string omitempty
    suspend 10 *bool omitempty
    podReplacementPolicy 14 *string omitempty
    managedBy 15 *string omitempty`,
  JobStatus: `
    conditions 1 []JobCondition omitempty
    startTime 2 *meta.Time omitempty
    completionTime 3 *meta.Time omitempty
    active 4 int32 omitempty
    succeeded 5 int32 omitempty
    failed 6 int32 omitempty
    terminating 11 *int32 omitempty
    completedIndexes 7 string omitempty
    failedIndexes 10 *string omitempty
    uncountedTerminatedPods 8 *UncountedTerminatedPods omitempty
    ready 9 *int32 omitempty`,
  UncountedTerminatedPods: `
    succeeded 1 []string omitempty
    failed 2 []string omitempty`,
  JobCondition: `
    type 1 string
    status 2 string
    lastProbeTime 3 meta.Time omitempty
    lastTransitionTime 4 meta.Time omitempty
    reason 5 string omitempty
    message 6 string omitempty`,
  JobTemplateSpec: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 JobSpec omitempty`,
  CronJob: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 CronJobSpec omitempty
    status 3 CronJobStatus omitempty`,
  CronJobList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []CronJob`,
  CronJobSpec: `
    schedule 1 string
    timeZone 8 *string omitempty
    startingDeadlineSeconds 2 *int64 omitempty
    concurrencyPolicy 3 string omitempty
    suspend 4 *bool omitempty
    jobTemplate 5 JobTemplateSpec
    successfulJobsHistoryLimit 6 *int32 omitempty
    failedJobsHistoryLimit 7 *int32 omitempty`,
  CronJobStatus: `
    active 1 []core.ObjectReference omitempty
    lastScheduleTime 4 *meta.Time omitempty
    lastSuccessfulTime 5 *meta.Time omitempty`,
});

defineKind('batch', 'v1', 'Job', `${pkg}.Job`);
defineKind('batch', 'v1', 'CronJob', `${pkg}.CronJob`);
