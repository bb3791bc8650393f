// k8s.io/api core/v1: the Pod and every type only the Pod tree reaches (containers, probes, volumes
// and all volume sources, affinity, security contexts, statuses). The rest of core/v1 is in core-v1.ts.
//
// Fields as of Kubernetes 1.36 in development (kubernetes/kubernetes master at 0032f46b, after 1.35):
// numbers and names from its generated.proto, Go shapes and omitempty from the struct tags of
// k8s.io/api v0.32 (compiled into kubectl 1.32) and, for the fields added since, from its types.go.
//
import { PACKAGE_ALIASES, definePackage } from './catalog.js';

const containerFields = `
    name 1 string
    image 2 string omitempty
    command 3 []string omitempty
    args 4 []string omitempty
    workingDir 5 string omitempty
    ports 6 []ContainerPort omitempty
    envFrom 19 []EnvFromSource omitempty
    env 7 []EnvVar omitempty
    resources 8 ResourceRequirements omitempty
    resizePolicy 23 []ContainerResizePolicy omitempty
    restartPolicy 24 *string omitempty
    restartPolicyRules 25 []ContainerRestartRule omitempty
    volumeMounts 9 []VolumeMount omitempty
    volumeDevices 21 []VolumeDevice omitempty
    livenessProbe 10 *Probe omitempty
    readinessProbe 11 *Probe omitempty
    startupProbe 22 *Probe omitempty
    lifecycle 12 *Lifecycle omitempty
    terminationMessagePath 13 string omitempty
    terminationMessagePolicy 20 string omitempty
    imagePullPolicy 14 string omitempty
    securityContext 15 *SecurityContext omitempty
    stdin 16 bool omitempty
    stdinOnce 17 bool omitempty
    tty 18 bool omitempty`;

definePackage(PACKAGE_ALIASES.core, {
  Pod: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 PodSpec omitempty
    status 3 PodStatus omitempty`,
  PodSpec: `
    volumes 1 []Volume omitempty
    initContainers 20 []Container omitempty
    containers 2 []Container
    ephemeralContainers 34 []EphemeralContainer omitempty
    restartPolicy 3 string omitempty
    terminationGracePeriodSeconds 4 *int64 omitempty
    activeDeadlineSeconds 5 *int64 omitempty
    dnsPolicy 6 string omitempty
    nodeSelector 7 map[string]string omitempty
    serviceAccountName 8 string omitempty
    serviceAccount 9 string omitempty
    automountServiceAccountToken 21 *bool omitempty
    nodeName 10 string omitempty
    hostNetwork 11 bool omitempty
    hostPID 12 bool omitempty
    hostIPC 13 bool omitempty
    shareProcessNamespace 27 *bool omitempty
    securityContext 14 *PodSecurityContext omitempty
    imagePullSecrets 15 []LocalObjectReference omitempty
    hostname 16 string omitempty
    subdomain 17 string omitempty
    affinity 18 *Affinity omitempty
    schedulerName 19 string omitempty
    tolerations 22 []Toleration omitempty
    hostAliases 23 []HostAlias omitempty
    priorityClassName 24 string omitempty
    priority 25 *int32 omitempty
    dnsConfig 26 *PodDNSConfig omitempty
    readinessGates 28 []PodReadinessGate omitempty
    runtimeClassName 29 *string omitempty
    enableServiceLinks 30 *bool omitempty
    preemptionPolicy 31 *string omitempty
    overhead 32 map[string]resource.Quantity omitempty
    topologySpreadConstraints 33 []TopologySpreadConstraint omitempty
    setHostnameAsFQDN 35 *bool omitempty
    os 36 *PodOS omitempty
    hostUsers 37 *bool omitempty
    schedulingGates 38 []PodSchedulingGate omitempty
    resourceClaims 39 []PodResourceClaim omitempty
    resources 40 *ResourceRequirements omitempty
    hostnameOverride 41 *string omitempty
    workloadRef 42 *WorkloadReference omitempty`,
  Volume: `
    name 1 string
    volumeSource 2 VolumeSource inline`,
  VolumeSource: `
    hostPath 1 *HostPathVolumeSource omitempty
    emptyDir 2 *EmptyDirVolumeSource omitempty
    gcePersistentDisk 3 *GCEPersistentDiskVolumeSource omitempty
    awsElasticBlockStore 4 *AWSElasticBlockStoreVolumeSource omitempty
    gitRepo 5 *GitRepoVolumeSource omitempty
    secret 6 *SecretVolumeSource omitempty
    nfs 7 *NFSVolumeSource omitempty
    iscsi 8 *ISCSIVolumeSource omitempty
    glusterfs 9 *GlusterfsVolumeSource omitempty
    persistentVolumeClaim 10 *PersistentVolumeClaimVolumeSource omitempty
    rbd 11 *RBDVolumeSource omitempty
    flexVolume 12 *FlexVolumeSource omitempty
    cinder 13 *CinderVolumeSource omitempty
    cephfs 14 *CephFSVolumeSource omitempty
    flocker 15 *FlockerVolumeSource omitempty
    downwardAPI 16 *DownwardAPIVolumeSource omitempty
    fc 17 *FCVolumeSource omitempty
    azureFile 18 *AzureFileVolumeSource omitempty
    configMap 19 *ConfigMapVolumeSource omitempty
    vsphereVolume 20 *VsphereVirtualDiskVolumeSource omitempty
    quobyte 21 *QuobyteVolumeSource omitempty
    azureDisk 22 *AzureDiskVolumeSource omitempty
    photonPersistentDisk 23 *PhotonPersistentDiskVolumeSource omitempty
    projected 26 *ProjectedVolumeSource omitempty
    portworxVolume 24 *PortworxVolumeSource omitempty
    scaleIO 25 *ScaleIOVolumeSource omitempty
    storageos 27 *StorageOSVolumeSource omitempty
    csi 28 *CSIVolumeSource omitempty
    ephemeral 29 *EphemeralVolumeSource omitempty
    image 30 *ImageVolumeSource omitempty`,
  HostPathVolumeSource: `
    path 1 string
    type 2 *string omitempty`,
  EmptyDirVolumeSource: `
    medium 1 string omitempty
    sizeLimit 2 *resource.Quantity omitempty`,
  GCEPersistentDiskVolumeSource: `
    pdName 1 string
    fsType 2 string omitempty
    partition 3 int32 omitempty
    readOnly 4 bool omitempty`,
  AWSElasticBlockStoreVolumeSource: `
    volumeID 1 string
    fsType 2 string omitempty
    partition 3 int32 omitempty
    readOnly 4 bool omitempty`,
  GitRepoVolumeSource: `
    repository 1 string
    revision 2 string omitempty
    directory 3 string omitempty`,
  SecretVolumeSource: `
    secretName 1 string omitempty
    items 2 []KeyToPath omitempty
    defaultMode 3 *int32 omitempty
    optional 4 *bool omitempty`,
  KeyToPath: `
    key 1 string
    path 2 string
    mode 3 *int32 omitempty`,
  NFSVolumeSource: `
    server 1 string
    path 2 string
    readOnly 3 bool omitempty`,
  ISCSIVolumeSource: `
    targetPortal 1 string
    iqn 2 string
    lun 3 int32
    iscsiInterface 4 string omitempty
    fsType 5 string omitempty
    readOnly 6 bool omitempty
    portals 7 []string omitempty
    chapAuthDiscovery 8 bool omitempty
    chapAuthSession 11 bool omitempty
    secretRef 10 *LocalObjectReference omitempty
    initiatorName 12 *string omitempty`,
  GlusterfsVolumeSource: `
    endpoints 1 string
    path 2 string
    readOnly 3 bool omitempty`,
  PersistentVolumeClaimVolumeSource: `
    claimName 1 string
    readOnly 2 bool omitempty`,
  RBDVolumeSource: `
    monitors 1 []string
    image 2 string
    fsType 3 string omitempty
    pool 4 string omitempty
    user 5 string omitempty
    keyring 6 string omitempty
    secretRef 7 *LocalObjectReference omitempty
    readOnly 8 bool omitempty`,
  FlexVolumeSource: `
    driver 1 string
    fsType 2 string omitempty
    secretRef 3 *LocalObjectReference omitempty
    readOnly 4 bool omitempty
    options 5 map[string]string omitempty`,
  CinderVolumeSource: `
    volumeID 1 string
    fsType 2 string omitempty
    readOnly 3 bool omitempty
    secretRef 4 *LocalObjectReference omitempty`,
  CephFSVolumeSource: `
    monitors 1 []string
    path 2 string omitempty
    user 3 string omitempty
    secretFile 4 string omitempty
    secretRef 5 *LocalObjectReference omitempty
    readOnly 6 bool omitempty`,
  FlockerVolumeSource: `
    datasetName 1 string omitempty
    datasetUUID 2 string omitempty`,
  DownwardAPIVolumeSource: `
    items 1 []DownwardAPIVolumeFile omitempty
    defaultMode 2 *int32 omitempty`,
  DownwardAPIVolumeFile: `
    path 1 string
    fieldRef 2 *ObjectFieldSelector omitempty
    resourceFieldRef 3 *ResourceFieldSelector omitempty
    mode 4 *int32 omitempty`,
  ObjectFieldSelector: `
    apiVersion 1 string omitempty
    fieldPath 2 string`,
  ResourceFieldSelector: `
    containerName 1 string omitempty
    resource 2 string
    divisor 3 resource.Quantity omitempty`,
  FCVolumeSource: `
    targetWWNs 1 []string omitempty
    lun 2 *int32 omitempty
    fsType 3 string omitempty
    readOnly 4 bool omitempty
    wwids 5 []string omitempty`,
  AzureFileVolumeSource: `
    secretName 1 string
    shareName 2 string
    readOnly 3 bool omitempty`,
  ConfigMapVolumeSource: `
    localObjectReference 1 LocalObjectReference inline
    items 2 []KeyToPath omitempty
    defaultMode 3 *int32 omitempty
    optional 4 *bool omitempty`,
  VsphereVirtualDiskVolumeSource: `
    volumePath 1 string
    fsType 2 string omitempty
    storagePolicyName 3 string omitempty
    storagePolicyID 4 string omitempty`,
  QuobyteVolumeSource: `
    registry 1 string
    volume 2 string
    readOnly 3 bool omitempty
    user 4 string omitempty
    group 5 string omitempty
    tenant 6 string omitempty`,
  AzureDiskVolumeSource: `
    diskName 1 string
    diskURI 2 string
    cachingMode 3 *string omitempty
    fsType 4 *string omitempty
    readOnly 5 *bool omitempty
    kind 6 *string omitempty`,
  PhotonPersistentDiskVolumeSource: `
    pdID 1 string
    fsType 2 string omitempty`,
  ProjectedVolumeSource: `
    sources 1 []VolumeProjection
    defaultMode 2 *int32 omitempty`,
  VolumeProjection: `
    secret 1 *SecretProjection omitempty
    downwardAPI 2 *DownwardAPIProjection omitempty
    configMap 3 *ConfigMapProjection omitempty
    serviceAccountToken 4 *ServiceAccountTokenProjection omitempty
    clusterTrustBundle 5 *ClusterTrustBundleProjection omitempty
    podCertificate 6 *PodCertificateProjection omitempty`,
  SecretProjection: `
    localObjectReference 1 LocalObjectReference inline
    items 2 []KeyToPath omitempty
    optional 4 *bool omitempty`,
  DownwardAPIProjection: `
    items 1 []DownwardAPIVolumeFile omitempty`,
  ConfigMapProjection: `
    localObjectReference 1 LocalObjectReference inline
    items 2 []KeyToPath omitempty
    optional 4 *bool omitempty`,
  ServiceAccountTokenProjection: `
    audience 1 string omitempty
    expirationSeconds 2 *int64 omitempty
    path 3 string`,
  ClusterTrustBundleProjection: `
    name 1 *string omitempty
    signerName 2 *string omitempty
    labelSelector 3 *meta.LabelSelector omitempty
    optional 5 *bool omitempty
    path 4 string`,
  PodCertificateProjection: `
    signerName 1 string omitempty
    keyType 2 string omitempty
    maxExpirationSeconds 3 *int32 omitempty
    credentialBundlePath 4 string omitempty
    keyPath 5 string omitempty
    certificateChainPath 6 string omitempty
    userAnnotations 7 map[string]string omitempty`,
  PortworxVolumeSource: `
    volumeID 1 string
    fsType 2 string omitempty
    readOnly 3 bool omitempty`,
  ScaleIOVolumeSource: `
    gateway 1 string
    system 2 string
    secretRef 3 *LocalObjectReference
    sslEnabled 4 bool omitempty
    protectionDomain 5 string omitempty
    storagePool 6 string omitempty
    storageMode 7 string omitempty
    volumeName 8 string omitempty
    fsType 9 string omitempty
    readOnly 10 bool omitempty`,
  StorageOSVolumeSource: `
    volumeName 1 string omitempty
    volumeNamespace 2 string omitempty
    fsType 3 string omitempty
    readOnly 4 bool omitempty
    secretRef 5 *LocalObjectReference omitempty`,
  CSIVolumeSource: `
    driver 1 string
    readOnly 2 *bool omitempty
    fsType 3 *string omitempty
    volumeAttributes 4 map[string]string omitempty
    nodePublishSecretRef 5 *LocalObjectReference omitempty`,
  EphemeralVolumeSource: `
    volumeClaimTemplate 1 *PersistentVolumeClaimTemplate omitempty`,
  PersistentVolumeClaimTemplate: `
    metadata 1 meta.ObjectMeta omitempty
    spec 2 PersistentVolumeClaimSpec`,
  ImageVolumeSource: `
    reference 1 string omitempty
    pullPolicy 2 string omitempty`,
  Container: containerFields,
  ContainerPort: `
    name 1 string omitempty
    hostPort 2 int32 omitempty
    containerPort 3 int32
    protocol 4 string omitempty
    hostIP 5 string omitempty`,
  EnvFromSource: `
    prefix 1 string omitempty
    configMapRef 2 *ConfigMapEnvSource omitempty
    secretRef 3 *SecretEnvSource omitempty`,
  ConfigMapEnvSource: `
    localObjectReference 1 LocalObjectReference inline
    optional 2 *bool omitempty`,
  SecretEnvSource: `
    localObjectReference 1 LocalObjectReference inline
    optional 2 *bool omitempty`,
  EnvVar: `
    name 1 string
    value 2 string omitempty
    valueFrom 3 *EnvVarSource omitempty`,
  EnvVarSource: `
    fieldRef 1 *ObjectFieldSelector omitempty
    resourceFieldRef 2 *ResourceFieldSelector omitempty
    configMapKeyRef 3 *ConfigMapKeySelector omitempty
    secretKeyRef 4 *SecretKeySelector omitempty
    fileKeyRef 5 *FileKeySelector omitempty`,
  ConfigMapKeySelector: `
    localObjectReference 1 LocalObjectReference inline
    key 2 string
    optional 3 *bool omitempty`,
  SecretKeySelector: `
    localObjectReference 1 LocalObjectReference inline
    key 2 string
    optional 3 *bool omitempty`,
  FileKeySelector: `
    volumeName 1 string
    path 2 string
    key 3 string
    optional 4 *bool omitempty`,
  ResourceRequirements: `
    limits 1 map[string]resource.Quantity omitempty
    requests 2 map[string]resource.Quantity omitempty
    claims 3 []ResourceClaim omitempty`,
  ResourceClaim: `
    name 1 string
    request 2 string omitempty`,
  ContainerResizePolicy: `
    resourceName 1 string
    restartPolicy 2 string`,
  ContainerRestartRule: `
    action 1 string omitempty
    exitCodes 2 *ContainerRestartRuleOnExitCodes omitempty`,
  ContainerRestartRuleOnExitCodes: `
    operator 1 string omitempty
    values 2 []int32 omitempty`,
  VolumeMount: `
    name 1 string
    readOnly 2 bool omitempty
    recursiveReadOnly 7 *string omitempty
    mountPath 3 string
    subPath 4 string omitempty
    mountPropagation 5 *string omitempty
    subPathExpr 6 string omitempty`,
  VolumeDevice: `
    name 1 string
    devicePath 2 string`,
  Probe: `
    handler 1 ProbeHandler inline
    initialDelaySeconds 2 int32 omitempty
    timeoutSeconds 3 int32 omitempty
    periodSeconds 4 int32 omitempty
    successThreshold 5 int32 omitempty
    failureThreshold 6 int32 omitempty
    terminationGracePeriodSeconds 7 *int64 omitempty`,
  ProbeHandler: `
    exec 1 *ExecAction omitempty
    httpGet 2 *HTTPGetAction omitempty
    tcpSocket 3 *TCPSocketAction omitempty
    grpc 4 *GRPCAction omitempty`,
  ExecAction: `
    command 1 []string omitempty`,
  HTTPGetAction: `
    path 1 string omitempty
    port 2 intstr.IntOrString
    host 3 string omitempty
    scheme 4 string omitempty
    httpHeaders 5 []HTTPHeader omitempty`,
  HTTPHeader: `
    name 1 string
    value 2 string`,
  TCPSocketAction: `
    port 1 intstr.IntOrString
    host 2 string omitempty`,
  GRPCAction: `
    port 1 int32
    service 2 *string`,
  Lifecycle: `
    postStart 1 *LifecycleHandler omitempty
    preStop 2 *LifecycleHandler omitempty
    stopSignal 3 *string omitempty`,
  LifecycleHandler: `
    exec 1 *ExecAction omitempty
    httpGet 2 *HTTPGetAction omitempty
    tcpSocket 3 *TCPSocketAction omitempty
    sleep 4 *SleepAction omitempty`,
  SleepAction: `
    seconds 1 int64`,
  SecurityContext: `
    capabilities 1 *Capabilities omitempty
    privileged 2 *bool omitempty
    seLinuxOptions 3 *SELinuxOptions omitempty
    windowsOptions 10 *WindowsSecurityContextOptions omitempty
    runAsUser 4 *int64 omitempty
    runAsGroup 8 *int64 omitempty
    runAsNonRoot 5 *bool omitempty
    readOnlyRootFilesystem 6 *bool omitempty
    allowPrivilegeEscalation 7 *bool omitempty
    procMount 9 *string omitempty
    seccompProfile 11 *SeccompProfile omitempty
    appArmorProfile 12 *AppArmorProfile omitempty
    ulimits 13 []Ulimit omitempty`,
  Capabilities: `
    add 1 []string omitempty
    drop 2 []string omitempty`,
  SELinuxOptions: `
    user 1 string omitempty
    role 2 string omitempty
    type 3 string omitempty
    level 4 string omitempty`,
  WindowsSecurityContextOptions: `
    gmsaCredentialSpecName 1 *string omitempty
    gmsaCredentialSpec 2 *string omitempty
    runAsUserName 3 *string omitempty
    hostProcess 4 *bool omitempty`,
  SeccompProfile: `
    type 1 string
    localhostProfile 2 *string omitempty`,
  AppArmorProfile: `
    type 1 string
    localhostProfile 2 *string omitempty`,
  Ulimit: `
    name 1 string
    hard 2 int64
    soft 3 int64`,
  EphemeralContainer: `
    ephemeralContainerCommon 1 EphemeralContainerCommon inline
    targetContainerName 2 string omitempty`,
  // Go requires it to convert to Container: the same fields
  EphemeralContainerCommon: containerFields,
  PodSecurityContext: `
    seLinuxOptions 1 *SELinuxOptions omitempty
    windowsOptions 8 *WindowsSecurityContextOptions omitempty
    runAsUser 2 *int64 omitempty
    runAsGroup 6 *int64 omitempty
    runAsNonRoot 3 *bool omitempty
    supplementalGroups 4 []int64 omitempty
    supplementalGroupsPolicy 12 *string omitempty
    fsGroup 5 *int64 omitempty
    sysctls 7 []Sysctl omitempty
    fsGroupChangePolicy 9 *string omitempty
    seccompProfile 10 *SeccompProfile omitempty
    appArmorProfile 11 *AppArmorProfile omitempty
    seLinuxChangePolicy 13 *string omitempty`,
  Sysctl: `
    name 1 string
    value 2 string`,
  Affinity: `
    nodeAffinity 1 *NodeAffinity omitempty
    podAffinity 2 *PodAffinity omitempty
    podAntiAffinity 3 *PodAntiAffinity omitempty`,
  NodeAffinity: `
    requiredDuringSchedulingIgnoredDuringExecution 1 *NodeSelector omitempty
    preferredDuringSchedulingIgnoredDuringExecution 2 []PreferredSchedulingTerm omitempty`,
  NodeSelector: `
    nodeSelectorTerms 1 []NodeSelectorTerm`,
  NodeSelectorTerm: `
    matchExpressions 1 []NodeSelectorRequirement omitempty
    matchFields 2 []NodeSelectorRequirement omitempty`,
  NodeSelectorRequirement: `
    key 1 string
    operator 2 string
    values 3 []string omitempty`,
  PreferredSchedulingTerm: `
    weight 1 int32
    preference 2 NodeSelectorTerm`,
  PodAffinity: `
    requiredDuringSchedulingIgnoredDuringExecution 1 []PodAffinityTerm omitempty
    preferredDuringSchedulingIgnoredDuringExecution 2 []WeightedPodAffinityTerm omitempty`,
  PodAffinityTerm: `
    labelSelector 1 *meta.LabelSelector omitempty
    namespaces 2 []string omitempty
    topologyKey 3 string
    namespaceSelector 4 *meta.LabelSelector omitempty
    matchLabelKeys 5 []string omitempty
    mismatchLabelKeys 6 []string omitempty`,
  WeightedPodAffinityTerm: `
    weight 1 int32
    podAffinityTerm 2 PodAffinityTerm`,
  PodAntiAffinity: `
    requiredDuringSchedulingIgnoredDuringExecution 1 []PodAffinityTerm omitempty
    preferredDuringSchedulingIgnoredDuringExecution 2 []WeightedPodAffinityTerm omitempty`,
  Toleration: `
    key 1 string omitempty
    operator 2 string omitempty
    value 3 string omitempty
    effect 4 string omitempty
    tolerationSeconds 5 *int64 omitempty`,
  HostAlias: `
    ip 1 string
    hostnames 2 []string omitempty`,
  PodDNSConfig: `
    nameservers 1 []string omitempty
    searches 2 []string omitempty
    options 3 []PodDNSConfigOption omitempty`,
  PodDNSConfigOption: `
    name 1 string omitempty
    value 2 *string omitempty`,
  PodReadinessGate: `
    conditionType 1 string`,
  TopologySpreadConstraint: `
    maxSkew 1 int32
    topologyKey 2 string
    whenUnsatisfiable 3 string
    labelSelector 4 *meta.LabelSelector omitempty
    minDomains 5 *int32 omitempty
    nodeAffinityPolicy 6 *string omitempty
    nodeTaintsPolicy 7 *string omitempty
    matchLabelKeys 8 []string omitempty`,
  PodOS: `
    name 1 string`,
  PodSchedulingGate: `
    name 1 string`,
  PodResourceClaim: `
    name 1 string
    resourceClaimName 3 *string omitempty
    resourceClaimTemplateName 4 *string omitempty`,
  WorkloadReference: `
    name 1 string
    podGroup 2 string
    podGroupReplicaKey 3 string omitempty`,
  PodStatus: `
    observedGeneration 17 int64 omitempty
    phase 1 string omitempty
    conditions 2 []PodCondition omitempty
    message 3 string omitempty
    reason 4 string omitempty
    nominatedNodeName 11 string omitempty
    hostIP 5 string omitempty
    hostIPs 16 []HostIP omitempty
    podIP 6 string omitempty
    podIPs 12 []PodIP omitempty
    startTime 7 *meta.Time omitempty
    initContainerStatuses 10 []ContainerStatus omitempty
    containerStatuses 8 []ContainerStatus omitempty
    qosClass 9 string omitempty
    ephemeralContainerStatuses 13 []ContainerStatus omitempty
    resize 14 string omitempty
    resourceClaimStatuses 15 []PodResourceClaimStatus omitempty
    extendedResourceClaimStatus 18 *PodExtendedResourceClaimStatus omitempty
    allocatedResources 19 map[string]resource.Quantity omitempty
    resources 20 *ResourceRequirements omitempty`,
  PodCondition: `
    type 1 string
    observedGeneration 7 int64 omitempty
    status 2 string
    lastProbeTime 3 meta.Time omitempty
    lastTransitionTime 4 meta.Time omitempty
    reason 5 string omitempty
    message 6 string omitempty`,
  HostIP: `
    ip 1 string`,
  PodIP: `
    ip 1 string`,
  ContainerStatus: `
    name 1 string
    state 2 ContainerState omitempty
    lastState 3 ContainerState omitempty
    ready 4 bool
    restartCount 5 int32
    image 6 string
    imageID 7 string
    containerID 8 string omitempty
    started 9 *bool omitempty
    allocatedResources 10 map[string]resource.Quantity omitempty
    resources 11 *ResourceRequirements omitempty
    volumeMounts 12 []VolumeMountStatus omitempty
    user 13 *ContainerUser omitempty
    allocatedResourcesStatus 14 []ResourceStatus omitempty
    stopSignal 15 *string omitempty`,
  ContainerState: `
    waiting 1 *ContainerStateWaiting omitempty
    running 2 *ContainerStateRunning omitempty
    terminated 3 *ContainerStateTerminated omitempty`,
  ContainerStateWaiting: `
    reason 1 string omitempty
    message 2 string omitempty`,
  ContainerStateRunning: `
    startedAt 1 meta.Time omitempty`,
  ContainerStateTerminated: `
    exitCode 1 int32
    signal 2 int32 omitempty
    reason 3 string omitempty
    message 4 string omitempty
    startedAt 5 meta.Time omitempty
    finishedAt 6 meta.Time omitempty
    containerID 7 string omitempty`,
  VolumeMountStatus: `
    name 1 string
    mountPath 2 string
    readOnly 3 bool omitempty
    recursiveReadOnly 4 *string omitempty
    volumeStatus 5 VolumeStatus omitempty`,
  VolumeStatus: `
    image 1 *ImageVolumeStatus omitempty`,
  ImageVolumeStatus: `
    imageRef 1 string omitempty`,
  ContainerUser: `
    linux 1 *LinuxContainerUser omitempty`,
  LinuxContainerUser: `
    uid 1 int64
    gid 2 int64
    supplementalGroups 3 []int64 omitempty`,
  ResourceStatus: `
    name 1 string
    resources 2 []ResourceHealth omitempty`,
  ResourceHealth: `
    resourceID 1 string
    health 2 string omitempty
    message 6 *string omitempty`,
  PodResourceClaimStatus: `
    name 1 string
    resourceClaimName 2 *string omitempty`,
  PodExtendedResourceClaimStatus: `
    requestMappings 1 []ContainerExtendedResourceRequest
    resourceClaimName 2 string`,
  ContainerExtendedResourceRequest: `
    containerName 1 string
    resourceName 2 string
    requestName 3 string`,
  PodList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Pod`,
});
