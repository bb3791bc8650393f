// ClusterConfig from a kubeconfig (current or named context) or from the in-cluster service account.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import yaml from 'js-yaml';
import { type AuthProvider, type ClusterConfig, staticToken, type TlsOptions } from './config.js';
import { execAuth, type ExecConfig } from './exec-auth.js';
import { tokenFileAuth } from './token-file.js';

export { execAuth, type ExecConfig } from './exec-auth.js';
export { tokenFileAuth } from './token-file.js';

export interface KubeconfigOptions {
  /** The context to use instead of `current-context`. */
  context?: string;
  /** Directory relative file paths (CA, certificates, token files, exec commands) are resolved against. */
  baseDir?: string;
}

interface NamedCluster {
  name: string;
  cluster: {
    server?: string;
    'certificate-authority'?: string;
    'certificate-authority-data'?: string;
    'insecure-skip-tls-verify'?: boolean;
    'tls-server-name'?: string;
  };
}

interface NamedUser {
  name: string;
  user?: {
    token?: string;
    tokenFile?: string;
    'client-certificate'?: string;
    'client-certificate-data'?: string;
    'client-key'?: string;
    'client-key-data'?: string;
    exec?: ExecConfig;
  };
}

interface NamedContext {
  name: string;
  context: { cluster: string; user?: string; namespace?: string };
}

interface Kubeconfig {
  clusters?: NamedCluster[];
  users?: NamedUser[];
  contexts?: NamedContext[];
  'current-context'?: string;
}

/** A ClusterConfig with the context's default namespace. */
export interface KubeconfigCluster extends ClusterConfig {
  namespace?: string;
}

function fail(message: string): never {
  throw new Error(`kubeconfig: ${message}`);
}

function decode(data: string): string {
  return Buffer.from(data, 'base64').toString('utf8');
}

export function loadKubeconfig(text: string, opts: KubeconfigOptions = {}): KubeconfigCluster {
  const doc = yaml.load(text) as Kubeconfig | undefined;
  if (!doc || typeof doc !== 'object') fail('not a YAML document');
  const contextName = opts.context ?? doc['current-context'];
  if (!contextName) fail('no context given and no current-context');
  const context = doc.contexts?.find((c) => c.name === contextName)?.context ?? fail(`context ${contextName} not found`);
  const cluster = doc.clusters?.find((c) => c.name === context.cluster)?.cluster ?? fail(`cluster ${context.cluster} not found`);
  if (!cluster.server) fail(`cluster ${context.cluster} has no server`);
  const user = context.user ? (doc.users?.find((u) => u.name === context.user)?.user ?? fail(`user ${context.user} not found`)) : undefined;

  const resolve = (file: string) => path.resolve(opts.baseDir ?? process.cwd(), file);
  const readText = (file: string) => readFileSync(resolve(file), 'utf8');
  const tls: TlsOptions = {};
  if (cluster['certificate-authority-data']) tls.ca = decode(cluster['certificate-authority-data']);
  else if (cluster['certificate-authority']) tls.ca = readText(cluster['certificate-authority']);
  if (cluster['insecure-skip-tls-verify']) tls.insecureSkipTlsVerify = true;
  if (cluster['tls-server-name']) tls.serverName = cluster['tls-server-name'];
  if (user?.['client-certificate-data']) tls.cert = decode(user['client-certificate-data']);
  else if (user?.['client-certificate']) tls.cert = readText(user['client-certificate']);
  if (user?.['client-key-data']) tls.key = decode(user['client-key-data']);
  else if (user?.['client-key']) tls.key = readText(user['client-key']);
  if ((tls.cert === undefined) !== (tls.key === undefined)) fail(`user ${context.user ?? ''}: a client certificate needs its key and the other way round`);

  let auth: AuthProvider | undefined;
  if (user?.token) auth = staticToken(user.token);
  else if (user?.tokenFile) auth = tokenFileAuth(resolve(user.tokenFile));
  else if (user?.exec) auth = execAuth(user.exec, { baseDir: opts.baseDir, cluster: { server: cluster.server, caData: cluster['certificate-authority-data'] } });

  return { name: contextName, server: cluster.server, tls, auth, namespace: context.namespace };
}

/** Reads a kubeconfig file; relative paths in it are relative to its directory. */
export function loadKubeconfigFile(file: string, opts: Omit<KubeconfigOptions, 'baseDir'> = {}): KubeconfigCluster {
  return loadKubeconfig(readFileSync(file, 'utf8'), { ...opts, baseDir: path.dirname(path.resolve(file)) });
}

export interface InClusterOptions {
  /** Where the service account is mounted. Default `/var/run/secrets/kubernetes.io/serviceaccount`. */
  serviceAccountDir?: string;
  /** Environment to read `KUBERNETES_SERVICE_HOST`/`_PORT` from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** The config of a pod talking to its own cluster: service host from the environment, the mounted token and CA. */
export function inClusterConfig(opts: InClusterOptions = {}): KubeconfigCluster {
  const env = opts.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('in-cluster config: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set');
  const dir = opts.serviceAccountDir ?? '/var/run/secrets/kubernetes.io/serviceaccount';
  const ca = readFileSync(path.join(dir, 'ca.crt'), 'utf8');
  let namespace: string | undefined;
  try {
    namespace = readFileSync(path.join(dir, 'namespace'), 'utf8').trim() || undefined;
  } catch {
    namespace = undefined;
  }
  const hostPart = host.includes(':') ? `[${host}]` : host;
  return { name: 'in-cluster', server: `https://${hostPart}:${port}`, tls: { ca }, auth: tokenFileAuth(path.join(dir, 'token')), namespace };
}
