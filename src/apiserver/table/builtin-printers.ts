// Column definitions and row cells of kube-apiserver's built-in printers (pkg/printers/internalversion),
// for the kinds this server serves.
import { ageSince, rfc3339 } from './age.js';
import { desc } from './descriptions.js';
import { arr, containerImages, containerNames, formatLabels, formatLabelSelector, int, noneIfEmpty, obj, podTemplateSpec, str, type Json } from './format.js';
import type { TableColumn } from './table.js';

export interface Printer {
  columns: TableColumn[];
  cells(o: Json, now: Date): unknown[];
  conditions?(o: Json): Array<Record<string, string>> | undefined;
}

const col = (name: string, type: string, description: string, priority = 0, format = ''): TableColumn => ({ name, type, format, description, priority });
const nameCol = col('Name', 'string', desc.name, 0, 'name');
const ageCol = col('Age', 'string', desc.creationTimestamp);
const createdAtCol = col('Created At', 'date', desc.creationTimestamp);
const containersCol = col('Containers', 'string', 'Names of each container in the template.', 1);
const imagesCol = col('Images', 'string', 'Images referenced by each container in the template.', 1);

const meta = (o: Json): Json => obj(o.metadata);
const name = (o: Json): string => str(meta(o).name);
const age = (o: Json, now: Date): string => ageSince(meta(o).creationTimestamp, now);
const spec = (o: Json): Json => obj(o.spec);
const status = (o: Json): Json => obj(o.status);

function servicePorts(ports: unknown[]): string {
  if (ports.length === 0) return '<none>';
  return ports
    .map(obj)
    .map((p) => {
      const protocol = str(p.protocol) || 'TCP';
      return p.nodePort !== undefined && p.nodePort !== 0 ? `${int(p.port)}:${int(p.nodePort)}/${protocol}` : `${int(p.port)}/${protocol}`;
    })
    .join(',');
}

function serviceExternalIP(o: Json): string {
  const s = spec(o);
  const type = str(s.type) || 'ClusterIP';
  const external = arr(s.externalIPs).map(str);
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = arr(obj(status(o).loadBalancer).ingress)
        .map(obj)
        .map((i) => str(i.ip) || str(i.hostname))
        .filter((x) => x !== '');
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(s.externalName);
    default:
      return '<unknown>';
  }
}

function formatEndpoints(o: Json): string {
  const all: string[] = [];
  let count = 0;
  for (const subset of arr(o.subsets).map(obj)) {
    const ports = arr(subset.ports).map(obj);
    for (const address of arr(subset.addresses).map(obj)) {
      if (ports.length === 0) {
        count++;
        if (all.length < 3) all.push(str(address.ip));
      }
      for (const port of ports) {
        count++;
        if (all.length < 3) all.push(`${str(address.ip)}:${int(port.port)}`);
      }
    }
  }
  if (count === 0) return '<none>';
  const shown = all.join(',');
  return count > all.length ? `${shown} + ${count - all.length} more...` : shown;
}

function podCells(o: Json, now: Date): unknown[] {
  const s = status(o);
  const containers = arr(spec(o).containers);
  let reason = str(s.reason) || str(s.phase);
  let restarts = 0;
  let ready = 0;
  let lastRestart: string | undefined;
  let initializing = false;
  const initStatuses = arr(s.initContainerStatuses).map(obj);
  initStatuses.forEach((c, i) => {
    restarts += int(c.restartCount);
    const state = obj(c.state);
    const terminated = obj(state.terminated);
    const waiting = obj(state.waiting);
    if (state.terminated !== undefined && int(terminated.exitCode) === 0) return;
    if (initializing) return;
    initializing = true;
    if (state.terminated !== undefined) reason = str(terminated.reason) ? `Init:${str(terminated.reason)}` : int(terminated.signal) !== 0 ? `Init:Signal:${int(terminated.signal)}` : `Init:ExitCode:${int(terminated.exitCode)}`;
    else if (str(waiting.reason) !== '' && str(waiting.reason) !== 'PodInitializing') reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${arr(spec(o).initContainers).length}`;
  });
  if (!initializing) {
    let hasRunning = false;
    const statuses = arr(s.containerStatuses).map(obj);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i];
      restarts += int(c.restartCount);
      const finished = obj(obj(c.lastState).terminated).finishedAt;
      if (typeof finished === 'string' && (lastRestart === undefined || finished > lastRestart)) lastRestart = finished;
      const state = obj(c.state);
      const waiting = obj(state.waiting);
      const terminated = obj(state.terminated);
      if (str(waiting.reason) !== '') reason = str(waiting.reason);
      else if (state.terminated !== undefined && str(terminated.reason) !== '') reason = str(terminated.reason);
      else if (state.terminated !== undefined) reason = int(terminated.signal) !== 0 ? `Signal:${int(terminated.signal)}` : `ExitCode:${int(terminated.exitCode)}`;
      else if (state.running !== undefined && c.ready === true) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = arr(s.conditions).some((c) => obj(c).type === 'Ready' && obj(c).status === 'True') ? 'Running' : 'NotReady';
  }
  if (meta(o).deletionTimestamp !== undefined) reason = str(s.reason) === 'NodeLost' ? 'Unknown' : 'Terminating';
  const restartText = lastRestart === undefined ? String(restarts) : `${restarts} (${ageSince(lastRestart, now)} ago)`;
  const gates = arr(spec(o).readinessGates).map(obj);
  const conditions = arr(s.conditions).map(obj);
  const readyGates = gates.filter((g) => conditions.some((c) => c.type === g.conditionType && c.status === 'True')).length;
  return [
    name(o),
    `${ready}/${containers.length}`,
    reason,
    restartText,
    age(o, now),
    noneIfEmpty(str(s.podIP)),
    noneIfEmpty(str(spec(o).nodeName)),
    noneIfEmpty(str(s.nominatedNodeName)),
    gates.length === 0 ? '<none>' : `${readyGates}/${gates.length}`,
  ];
}

function jobCompletions(o: Json): string {
  const s = spec(o);
  const succeeded = int(status(o).succeeded);
  if (typeof s.completions === 'number') return `${succeeded}/${s.completions}`;
  const parallelism = typeof s.parallelism === 'number' ? s.parallelism : 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: Json, now: Date): string {
  const start = status(o).startTime;
  if (typeof start !== 'string') return '';
  const end = status(o).completionTime;
  const endMs = typeof end === 'string' ? Date.parse(end) : now.getTime();
  return ageSince(start, new Date(endMs));
}

function eventCells(o: Json, now: Date): unknown[] {
  // events.k8s.io/v1 names its fields differently; read either shape.
  const series = obj(o.series);
  const last = series.lastObservedTime ?? o.lastTimestamp ?? o.deprecatedLastTimestamp ?? o.eventTime;
  const first = o.firstTimestamp ?? o.deprecatedFirstTimestamp ?? o.eventTime;
  const involved = obj(o.involvedObject ?? o.regarding);
  const source = obj(o.source ?? o.deprecatedSource);
  let sourceText = str(source.component);
  if (sourceText === '') sourceText = str(o.reportingComponent) || str(o.reportingController);
  const host = str(source.host) || str(o.reportingInstance);
  if (host !== '') sourceText = sourceText === '' ? host : `${sourceText}, ${host}`;
  const count = series.count ?? o.count ?? o.deprecatedCount ?? 0;
  return [
    ageSince(last, now),
    str(o.type),
    str(o.reason),
    `${str(involved.kind).toLowerCase()}/${str(involved.name)}`,
    str(involved.fieldPath),
    sourceText,
    str(o.message ?? o.note).trim(),
    ageSince(first, now),
    count,
    name(o),
  ];
}

function bindingSubjects(o: Json): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of arr(o.subjects).map(obj)) {
    if (s.kind === 'User') users.push(str(s.name));
    else if (s.kind === 'Group') groups.push(str(s.name));
    else if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}:${str(s.name)}`);
  }
  return [users.join(', '), groups.join(', '), sas.join(', ')];
}

function hpaTargets(o: Json): string {
  const metrics = arr(spec(o).metrics).map(obj);
  const current = arr(status(o).currentMetrics).map(obj);
  if (metrics.length === 0) {
    const target = spec(o).targetCPUUtilizationPercentage;
    if (typeof target !== 'number') return '<none>';
    const cur = status(o).currentCPUUtilizationPercentage;
    return `${typeof cur === 'number' ? `${cur}%` : '<unknown>'}/${target}%`;
  }
  const parts = metrics.map((m, i) => {
    const resource = obj(m.resource ?? m.containerResource);
    const target = obj(resource.target);
    const cur = obj(obj(current[i]?.resource ?? current[i]?.containerResource).current);
    if (typeof target.averageUtilization === 'number') return `${typeof cur.averageUtilization === 'number' ? `${cur.averageUtilization}%` : '<unknown>'}/${target.averageUtilization}%`;
    const value = target.averageValue ?? target.value;
    return `${cur.averageValue ?? cur.value ?? '<unknown>'}/${value === undefined ? '<unknown>' : String(value)}`;
  });
  const shown = parts.slice(0, 2).join(', ');
  return parts.length > 2 ? `${shown} + ${parts.length - 2} more...` : shown;
}

function pvcAccessModes(modes: unknown[]): string {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
  return modes.map((m) => short[str(m)] ?? str(m)).join(',');
}

function ingressCells(o: Json, now: Date): unknown[] {
  const s = spec(o);
  const hosts = arr(s.rules).map((r) => str(obj(r).host)).filter((h) => h !== '');
  const hostText = arr(s.rules).length === 0 ? '*' : hosts.length === 0 ? '*' : hosts.length > 4 ? `${hosts.slice(0, 4).join(',')} + ${hosts.length - 4} more...` : hosts.join(',');
  const address = arr(obj(obj(status(o).loadBalancer)).ingress)
    .map(obj)
    .map((i) => str(i.ip) || str(i.hostname))
    .join(',');
  const ports = arr(s.tls).length > 0 ? '80, 443' : '80';
  return [name(o), str(s.ingressClassName) || '<none>', hostText, address, ports, age(o, now)];
}

function webhookPrinter(): Printer {
  return {
    columns: [nameCol, col('Webhooks', 'integer', 'Webhooks indicates the number of webhooks in the configuration'), ageCol],
    cells: (o, now) => [name(o), arr(o.webhooks).length, age(o, now)],
  };
}

/** STATUS of a node: its Ready condition (`Ready`, `NotReady`, else `Unknown`), `SchedulingDisabled` when cordoned. */
function nodeStatus(o: Json): string {
  const ready = arr(status(o).conditions).map(obj).find((c) => c.type === 'Ready');
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (spec(o).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** ROLES of a node: `node-role.kubernetes.io/<role>` label keys and `kubernetes.io/role` values, sorted. */
function nodeRoles(o: Json): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(obj(meta(o).labels))) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) roles.add(k.slice('node-role.kubernetes.io/'.length));
    else if (k === 'kubernetes.io/role' && str(v) !== '') roles.add(str(v));
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(o: Json, type: string): string {
  const a = arr(status(o).addresses).map(obj).find((x) => x.type === type);
  return a ? str(a.address) : '<none>';
}

const completedPod = { type: 'Completed', status: 'True' };

export const printers: Record<string, Printer> = {
  '/Namespace': { columns: [nameCol, col('Status', 'string', 'The status of the namespace'), ageCol], cells: (o, now) => [name(o), str(status(o).phase), age(o, now)] },
  '/Node': {
    columns: [
      nameCol,
      col('Status', 'string', 'The status of the node'),
      col('Roles', 'string', 'The roles of the node'),
      ageCol,
      col('Version', 'string', desc.nodeKubeletVersion),
      col('Internal-IP', 'string', desc.nodeAddresses, 1),
      col('External-IP', 'string', desc.nodeAddresses, 1),
      col('OS-Image', 'string', desc.nodeOsImage, 1),
      col('Kernel-Version', 'string', desc.nodeKernelVersion, 1),
      col('Container-Runtime', 'string', desc.nodeContainerRuntime, 1),
    ],
    cells: (o, now) => {
      const info = obj(status(o).nodeInfo);
      return [
        name(o),
        nodeStatus(o),
        nodeRoles(o),
        age(o, now),
        str(info.kubeletVersion),
        nodeAddress(o, 'InternalIP'),
        nodeAddress(o, 'ExternalIP'),
        str(info.osImage) || '<unknown>',
        str(info.kernelVersion) || '<unknown>',
        str(info.containerRuntimeVersion) || '<unknown>',
      ];
    },
  },
  '/ConfigMap': {
    columns: [nameCol, col('Data', 'string', desc.configMapData), ageCol],
    cells: (o, now) => [name(o), Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length, age(o, now)],
  },
  '/Secret': {
    columns: [nameCol, col('Type', 'string', desc.secretType), col('Data', 'string', desc.secretData), ageCol],
    cells: (o, now) => [name(o), str(o.type), Object.keys(obj(o.data)).length, age(o, now)],
  },
  '/ServiceAccount': { columns: [nameCol, col('Secrets', 'string', desc.serviceAccountSecrets), ageCol], cells: (o, now) => [name(o), arr(o.secrets).length, age(o, now)] },
  '/Service': {
    columns: [
      nameCol,
      col('Type', 'string', desc.serviceType),
      col('Cluster-IP', 'string', desc.serviceClusterIP),
      col('External-IP', 'string', desc.serviceExternalIPs),
      col('Port(s)', 'string', desc.servicePorts),
      ageCol,
      col('Selector', 'string', desc.serviceSelector, 1),
    ],
    cells: (o, now) => [name(o), str(spec(o).type) || 'ClusterIP', noneIfEmpty(str(spec(o).clusterIP)), serviceExternalIP(o), servicePorts(arr(spec(o).ports)), age(o, now), formatLabels(spec(o).selector)],
  },
  '/Endpoints': { columns: [nameCol, col('Endpoints', 'string', desc.endpointsSubsets), ageCol], cells: (o, now) => [name(o), formatEndpoints(o), age(o, now)] },
  '/Event': {
    columns: [
      col('Last Seen', 'string', desc.eventLastTimestamp),
      col('Type', 'string', desc.eventType),
      col('Reason', 'string', desc.eventReason),
      col('Object', 'string', desc.eventInvolvedObject),
      col('Subobject', 'string', desc.eventFieldPath, 1),
      col('Source', 'string', desc.eventSource, 1),
      col('Message', 'string', desc.eventMessage),
      col('First Seen', 'string', desc.eventFirstTimestamp, 1),
      col('Count', 'string', desc.eventCount, 1),
      col('Name', 'string', desc.name, 1, 'name'),
    ],
    cells: eventCells,
  },
  'coordination.k8s.io/Lease': { columns: [nameCol, col('Holder', 'string', desc.leaseHolder), ageCol], cells: (o, now) => [name(o), str(spec(o).holderIdentity), age(o, now)] },
  'apps/Deployment': {
    columns: [
      nameCol,
      col('Ready', 'string', 'Number of the pod with ready state'),
      col('Up-to-date', 'string', desc.deploymentUpdated),
      col('Available', 'string', desc.deploymentAvailable),
      ageCol,
      containersCol,
      imagesCol,
      col('Selector', 'string', desc.deploymentSelector, 1),
    ],
    cells: (o, now) => [
      name(o),
      `${int(status(o).readyReplicas)}/${typeof spec(o).replicas === 'number' ? spec(o).replicas : 1}`,
      int(status(o).updatedReplicas),
      int(status(o).availableReplicas),
      age(o, now),
      containerNames(podTemplateSpec(o)),
      containerImages(podTemplateSpec(o)),
      formatLabelSelector(spec(o).selector),
    ],
  },
  'apps/StatefulSet': {
    columns: [nameCol, col('Ready', 'string', 'Number of the pod with ready state'), ageCol, containersCol, imagesCol],
    cells: (o, now) => [name(o), `${int(status(o).readyReplicas)}/${typeof spec(o).replicas === 'number' ? spec(o).replicas : 1}`, age(o, now), containerNames(podTemplateSpec(o)), containerImages(podTemplateSpec(o))],
  },
  'apps/DaemonSet': {
    columns: [
      nameCol,
      col('Desired', 'integer', desc.daemonSetDesired),
      col('Current', 'integer', desc.daemonSetCurrent),
      col('Ready', 'integer', desc.daemonSetReady),
      col('Up-to-date', 'integer', desc.daemonSetUpdated),
      col('Available', 'integer', desc.daemonSetAvailable),
      col('Node Selector', 'string', desc.nodeSelector),
      ageCol,
      containersCol,
      imagesCol,
      col('Selector', 'string', desc.daemonSetSelector, 1),
    ],
    cells: (o, now) => {
      const s = status(o);
      return [
        name(o),
        int(s.desiredNumberScheduled),
        int(s.currentNumberScheduled),
        int(s.numberReady),
        int(s.updatedNumberScheduled),
        int(s.numberAvailable),
        formatLabels(podTemplateSpec(o).nodeSelector),
        age(o, now),
        containerNames(podTemplateSpec(o)),
        containerImages(podTemplateSpec(o)),
        formatLabelSelector(spec(o).selector),
      ];
    },
  },
  'apps/ReplicaSet': {
    columns: [
      nameCol,
      col('Desired', 'integer', desc.replicaSetReplicas),
      col('Current', 'integer', desc.replicaSetStatusReplicas),
      col('Ready', 'integer', desc.replicaSetReady),
      ageCol,
      containersCol,
      imagesCol,
      col('Selector', 'string', desc.replicaSetSelector, 1),
    ],
    cells: (o, now) => [
      name(o),
      typeof spec(o).replicas === 'number' ? spec(o).replicas : 1,
      int(status(o).replicas),
      int(status(o).readyReplicas),
      age(o, now),
      containerNames(podTemplateSpec(o)),
      containerImages(podTemplateSpec(o)),
      formatLabelSelector(spec(o).selector),
    ],
  },
  '/Pod': {
    columns: [
      nameCol,
      col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
      col('Status', 'string', 'The aggregate status of the containers in this pod.'),
      col('Restarts', 'string', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
      ageCol,
      col('IP', 'string', desc.podIP, 1),
      col('Node', 'string', desc.nodeName, 1),
      col('Nominated Node', 'string', desc.nominatedNodeName, 1),
      col('Readiness Gates', 'string', desc.readinessGates, 1),
    ],
    cells: podCells,
    conditions: (o) => {
      const phase = status(o).phase;
      if (phase === 'Succeeded') return [{ ...completedPod, reason: 'Succeeded', message: 'The pod has completed successfully.' }];
      if (phase === 'Failed') return [{ ...completedPod, reason: 'Failed', message: 'The pod failed.' }];
      return undefined;
    },
  },
  'batch/Job': {
    columns: [nameCol, col('Completions', 'string', desc.jobSucceeded), col('Duration', 'string', 'Time required to complete the job.'), ageCol, containersCol, imagesCol, col('Selector', 'string', desc.jobSelector, 1)],
    cells: (o, now) => [name(o), jobCompletions(o), jobDuration(o, now), age(o, now), containerNames(podTemplateSpec(o)), containerImages(podTemplateSpec(o)), formatLabelSelector(spec(o).selector)],
  },
  'batch/CronJob': {
    columns: [
      nameCol,
      col('Schedule', 'string', desc.cronJobSchedule),
      col('Suspend', 'boolean', desc.cronJobSuspend),
      col('Active', 'integer', desc.cronJobActive),
      col('Last Schedule', 'string', desc.cronJobLastSchedule),
      ageCol,
      containersCol,
      imagesCol,
      col('Selector', 'string', desc.jobSelector, 1),
    ],
    cells: (o, now) => {
      const jobSpec = obj(obj(obj(spec(o).jobTemplate).spec).template);
      const podSpec = obj(jobSpec.spec);
      const last = status(o).lastScheduleTime;
      return [
        name(o),
        str(spec(o).schedule),
        spec(o).suspend === true,
        arr(status(o).active).length,
        typeof last === 'string' ? ageSince(last, now) : '<none>',
        age(o, now),
        containerNames(podSpec),
        containerImages(podSpec),
        formatLabelSelector(obj(obj(spec(o).jobTemplate).spec).selector),
      ];
    },
  },
  '/PersistentVolumeClaim': {
    columns: [
      nameCol,
      col('Status', 'string', desc.pvcPhase),
      col('Volume', 'string', desc.pvcVolumeName),
      col('Capacity', 'string', desc.pvcCapacity),
      col('Access Modes', 'string', desc.pvcAccessModes),
      col('StorageClass', 'string', 'StorageClass of the pvc'),
      ageCol,
      col('VolumeMode', 'string', desc.pvcVolumeMode, 1),
    ],
    cells: (o, now) => {
      const s = status(o);
      const bound = str(spec(o).volumeName) !== '';
      const storageClass = str(spec(o).storageClassName) || str(obj(meta(o).annotations)['volume.beta.kubernetes.io/storage-class']);
      return [
        name(o),
        meta(o).deletionTimestamp !== undefined ? 'Terminating' : str(s.phase),
        str(spec(o).volumeName),
        bound ? str(obj(s.capacity).storage) : '',
        bound ? pvcAccessModes(arr(s.accessModes)) : '',
        storageClass,
        age(o, now),
        str(spec(o).volumeMode) || '<unset>',
      ];
    },
  },
  'networking.k8s.io/NetworkPolicy': {
    columns: [nameCol, col('Pod-Selector', 'string', desc.networkPolicyPodSelector), ageCol],
    cells: (o, now) => [name(o), formatLabelSelector(spec(o).podSelector), age(o, now)],
  },
  'networking.k8s.io/Ingress': {
    columns: [
      nameCol,
      col('Class', 'string', 'The name of the IngressClass resource that should be used for ingress'),
      col('Hosts', 'string', 'Hosts that incoming requests are matched against before the ingress rule'),
      col('Address', 'string', 'Address is a list containing ingress points for the load-balancer'),
      col('Ports', 'string', 'Ports of TLS configurations that open'),
      ageCol,
    ],
    cells: ingressCells,
  },
  'policy/PodDisruptionBudget': {
    columns: [
      nameCol,
      col('Min Available', 'string', 'The minimum number of pods that must be available.'),
      col('Max Unavailable', 'string', 'The maximum number of pods that may be unavailable.'),
      col('Allowed Disruptions', 'integer', 'Calculated number of pods that may be disrupted at this time.'),
      ageCol,
    ],
    cells: (o, now) => [name(o), spec(o).minAvailable === undefined ? 'N/A' : String(spec(o).minAvailable), spec(o).maxUnavailable === undefined ? 'N/A' : String(spec(o).maxUnavailable), int(status(o).disruptionsAllowed), age(o, now)],
  },
  'scheduling.k8s.io/PriorityClass': {
    columns: [nameCol, col('Value', 'integer', desc.priorityClassValue), col('Global-Default', 'boolean', desc.priorityClassGlobalDefault), ageCol],
    cells: (o, now) => [name(o), int(o.value), o.globalDefault === true, age(o, now)],
  },
  'autoscaling/HorizontalPodAutoscaler': {
    columns: [
      nameCol,
      col('Reference', 'string', desc.hpaScaleTargetRef),
      col('Targets', 'string', desc.hpaMetrics),
      col('MinPods', 'string', desc.hpaMinReplicas),
      col('MaxPods', 'string', desc.hpaMaxReplicas),
      col('Replicas', 'string', desc.hpaCurrentReplicas),
      ageCol,
    ],
    cells: (o, now) => {
      const ref = obj(spec(o).scaleTargetRef);
      const min = spec(o).minReplicas;
      return [name(o), `${str(ref.kind)}/${str(ref.name)}`, hpaTargets(o), typeof min === 'number' ? String(min) : '<unset>', int(spec(o).maxReplicas), int(status(o).currentReplicas), age(o, now)];
    },
  },
  'rbac.authorization.k8s.io/Role': { columns: [nameCol, createdAtCol], cells: (o) => [name(o), rfc3339(meta(o).creationTimestamp)] },
  'rbac.authorization.k8s.io/ClusterRole': { columns: [nameCol, createdAtCol], cells: (o) => [name(o), rfc3339(meta(o).creationTimestamp)] },
  'rbac.authorization.k8s.io/RoleBinding': bindingPrinter(),
  'rbac.authorization.k8s.io/ClusterRoleBinding': bindingPrinter(),
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': webhookPrinter(),
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': webhookPrinter(),
};
printers['events.k8s.io/Event'] = printers['/Event'];

function bindingPrinter(): Printer {
  return {
    columns: [nameCol, col('Role', 'string', desc.roleRef), ageCol, col('Users', 'string', 'Users in the roleBinding', 1), col('Groups', 'string', 'Groups in the roleBinding', 1), col('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', 1)],
    cells: (o, now) => {
      const ref = obj(o.roleRef);
      return [name(o), `${str(ref.kind)}/${str(ref.name)}`, age(o, now), ...bindingSubjects(o)];
    },
  };
}

/** kube's default table convertor, used for kinds without a printer (CustomResourceDefinition among them). */
export const defaultPrinter: Printer = { columns: [nameCol, createdAtCol], cells: (o) => [name(o), rfc3339(meta(o).creationTimestamp)] };

export function printerFor(group: string, kind: string): Printer {
  return printers[`${group}/${kind}`] ?? defaultPrinter;
}

export { nameCol, ageCol };
