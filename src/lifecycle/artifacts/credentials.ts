// Registry credentials from a `kubernetes.io/dockerconfigjson` Secret: `.dockerconfigjson` holds
// `{"auths": {"<host[:port]>": {"auth": base64("user:password")} | {"username", "password"}}}`.
// Keys may be written as a host, host:port or a URL (`https://host/v1/`), as docker login does.
import type { KubeObject } from '../../kube/object.js';
import type { RegistryCredentials } from './types.js';
import { isRecord } from './yaml-stream.js';

export const DOCKER_CONFIG_JSON_TYPE = 'kubernetes.io/dockerconfigjson';
export const DOCKER_CONFIG_JSON_KEY = '.dockerconfigjson';

export class CredentialsError extends Error {
  override name = 'CredentialsError';
}

/** Credentials for `registry` (`host[:port]`) from a Secret, or undefined when it has none for that host. */
export function credentialsFromSecret(secret: KubeObject, registry: string): RegistryCredentials | undefined {
  const where = `Secret ${secret.metadata.namespace ?? ''}/${secret.metadata.name ?? ''}`;
  if (secret.type !== DOCKER_CONFIG_JSON_TYPE) throw new CredentialsError(`${where} has type ${JSON.stringify(secret.type ?? '')}, expected ${DOCKER_CONFIG_JSON_TYPE}`);
  const data = isRecord(secret.data) ? secret.data[DOCKER_CONFIG_JSON_KEY] : undefined;
  const stringData = isRecord(secret.stringData) ? secret.stringData[DOCKER_CONFIG_JSON_KEY] : undefined;
  const text = typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : typeof stringData === 'string' ? stringData : undefined;
  if (text === undefined) throw new CredentialsError(`${where} has no ${DOCKER_CONFIG_JSON_KEY}`);
  return credentialsFromDockerConfig(text, registry, where);
}

/** Credentials for `registry` from the text of a docker config (`{"auths": {...}}`). */
export function credentialsFromDockerConfig(text: string, registry: string, where = 'docker config'): RegistryCredentials | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CredentialsError(`${where}: ${DOCKER_CONFIG_JSON_KEY} is not JSON`);
  }
  if (!isRecord(doc) || !isRecord(doc.auths)) throw new CredentialsError(`${where}: ${DOCKER_CONFIG_JSON_KEY} has no "auths" object`);
  const wanted = normalizeRegistry(registry);
  for (const [key, entry] of Object.entries(doc.auths)) {
    if (normalizeRegistry(key) !== wanted || !isRecord(entry)) continue;
    return entryCredentials(entry, `${where}: auths[${JSON.stringify(key)}]`);
  }
  return undefined;
}

function entryCredentials(entry: Record<string, unknown>, where: string): RegistryCredentials {
  if (typeof entry.username === 'string' && typeof entry.password === 'string') return { username: entry.username, password: entry.password };
  if (typeof entry.auth === 'string') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new CredentialsError(`${where}: "auth" is not base64 of user:password`);
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  throw new CredentialsError(`${where} has neither "auth" nor "username" and "password"`);
}

/** `https://Host:5000/v1/` and `host:5000` name the same registry; Docker Hub has several spellings. */
export function normalizeRegistry(key: string): string {
  let host = key.trim().replace(/^[a-z]+:\/\//i, '');
  const slash = host.indexOf('/');
  if (slash >= 0) host = host.slice(0, slash);
  host = host.toLowerCase();
  if (host === 'index.docker.io' || host === 'registry-1.docker.io') return 'docker.io';
  return host;
}
