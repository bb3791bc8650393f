// k8s.io/api batch/v1beta1: CronJob, which kube-apiserver serves until 1.25 (kubectl 1.20's
// `create cronjob` writes it), with batch/v1's fields.
import { CRONJOB_TYPES } from './batch-v1.js';
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.batchv1beta1;

definePackage(pkg, CRONJOB_TYPES);

defineKind('batch', 'v1beta1', 'CronJob', `${pkg}.CronJob`);
