// Exec credential plugins (client.authentication.k8s.io v1 and v1beta1): run a command, read an
// ExecCredential from its stdout, keep the token until its expirationTimestamp, run again after a 401.
import { execFile } from 'node:child_process';
import path from 'node:path';
import type { AuthProvider } from './config.js';
import { ApiError } from './errors.js';

export interface ExecConfig {
  apiVersion?: string;
  command: string;
  args?: string[];
  env?: { name: string; value: string }[] | null;
  installHint?: string;
  provideClusterInfo?: boolean;
  interactiveMode?: string;
}

interface ExecCredential {
  apiVersion?: string;
  kind?: string;
  status?: { token?: string; expirationTimestamp?: string; clientCertificateData?: string; clientKeyData?: string };
}

const SUPPORTED = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

export interface ExecAuthOptions {
  /** Directory a relative command path (one with a slash) is resolved against: the kubeconfig's. */
  baseDir?: string;
  /** Passed in KUBERNETES_EXEC_INFO when the plugin asks for cluster info. */
  cluster?: { server: string; caData?: string };
  /** How long the command may run. Default 30 s. */
  timeoutMs?: number;
}

function credentialError(message: string, cause?: unknown): ApiError {
  return new ApiError('Unauthorized', `exec credential plugin: ${message}`, 401, undefined, undefined, { cause });
}

export function execAuth(spec: ExecConfig, opts: ExecAuthOptions = {}): AuthProvider {
  const apiVersion = spec.apiVersion ?? 'client.authentication.k8s.io/v1';
  if (!SUPPORTED.includes(apiVersion)) throw new Error(`exec credential plugin: unsupported apiVersion ${apiVersion}`);
  const command = spec.command.includes('/') && opts.baseDir ? path.resolve(opts.baseDir, spec.command) : spec.command;
  let cached: { header: string; expiresAt: number } | undefined;
  let running: Promise<string> | undefined;

  const run = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const info = {
        apiVersion,
        kind: 'ExecCredential',
        spec: {
          interactive: false,
          ...(spec.provideClusterInfo && opts.cluster ? { cluster: { server: opts.cluster.server, 'certificate-authority-data': opts.cluster.caData } } : {}),
        },
      };
      const env: NodeJS.ProcessEnv = { ...process.env, KUBERNETES_EXEC_INFO: JSON.stringify(info) };
      for (const e of spec.env ?? []) env[e.name] = e.value;
      execFile(command, spec.args ?? [], { env, timeout: opts.timeoutMs ?? 30_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
        if (err) {
          const hint = spec.installHint ? ` (${spec.installHint.trim()})` : '';
          reject(credentialError(`${spec.command} failed: ${err.message.trim()}${stderr ? `: ${stderr.trim()}` : ''}${hint}`, err));
          return;
        }
        let cred: ExecCredential;
        try {
          cred = JSON.parse(stdout) as ExecCredential;
        } catch (e) {
          reject(credentialError(`${spec.command} did not print an ExecCredential`, e));
          return;
        }
        if (cred.kind !== 'ExecCredential' || cred.apiVersion !== apiVersion) {
          reject(credentialError(`${spec.command} printed ${cred.kind ?? '?'} ${cred.apiVersion ?? '?'}, want ExecCredential ${apiVersion}`));
          return;
        }
        const token = cred.status?.token;
        if (!token) {
          reject(credentialError(`${spec.command} returned no token (client certificates from plugins are not supported)`));
          return;
        }
        const expires = cred.status?.expirationTimestamp ? Date.parse(cred.status.expirationTimestamp) : Number.POSITIVE_INFINITY;
        cached = { header: `Bearer ${token}`, expiresAt: Number.isNaN(expires) ? Number.POSITIVE_INFINITY : expires };
        resolve(cached.header);
      });
    });

  return {
    authorization() {
      if (cached && Date.now() < cached.expiresAt) return Promise.resolve(cached.header);
      // Concurrent requests share one run of the plugin.
      running ??= run().finally(() => {
        running = undefined;
      });
      return running;
    },
    invalidate() {
      cached = undefined;
      return true;
    },
  };
}
