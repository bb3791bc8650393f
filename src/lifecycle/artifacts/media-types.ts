// Media types of module artifacts. A module version is one OCI artifact: an OCI image manifest whose
// config blob describes the module and whose layers hold the raw manifest and the default CR.

/** OCI image manifest (what `kcp module push` writes). */
export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
/** Docker image manifest v2 schema 2 (accepted when pulling). */
export const DOCKER_MANIFEST_V2 = 'application/vnd.docker.distribution.manifest.v2+json';
/** Manifest lists / indexes: a registry may answer with one; modules never use them. */
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';

/** Config blob: the module's `module.yaml`, as JSON. */
export const MODULE_CONFIG = 'application/vnd.kyma.module.config.v1+json';
/** Layer: the module's raw manifest, a multi-document YAML stream of Kubernetes objects. */
export const RAW_MANIFEST_LAYER = 'application/vnd.kyma.module.raw-manifest.v1+yaml';
/** Layer: the module's default custom resource (one YAML document). */
export const DEFAULT_CR_LAYER = 'application/vnd.kyma.module.default-cr.v1+yaml';

/** Plain YAML layers accepted as the raw manifest when an artifact has no layer of our own type. */
export const PLAIN_YAML_LAYERS: readonly string[] = ['application/x-yaml', 'application/yaml', 'text/yaml'];

/** Accept header for manifest GETs. */
export const MANIFEST_ACCEPT = [OCI_MANIFEST, DOCKER_MANIFEST_V2, OCI_INDEX, DOCKER_MANIFEST_LIST].join(', ');

/** Annotation naming a layer's file (as ORAS and others do). */
export const TITLE_ANNOTATION = 'org.opencontainers.image.title';

/** File names given to the layers (title annotation). */
export const RAW_MANIFEST_FILE_TITLE = 'raw-manifest.yaml';
export const DEFAULT_CR_FILE_TITLE = 'default-cr.yaml';
