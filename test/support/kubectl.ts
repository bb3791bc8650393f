// Runs kubectl against a kubeconfig, for end-to-end tests.
import { execFile } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function kubectl(kubeconfig: string, args: string[], input?: string, timeoutMs = 60_000): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: timeoutMs, env: { ...process.env, KUBECONFIG: kubeconfig } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as NodeJS.ErrnoException & { code?: unknown }).code === 'number' ? ((err as unknown as { code: number }).code) : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Throws with kubectl's output when it failed, so a failing test shows why. */
export async function kubectlOk(kubeconfig: string, args: string[], input?: string): Promise<string> {
  const r = await kubectl(kubeconfig, args, input);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

let minorVersion: Promise<number> | undefined;

/**
 * The minor version of the kubectl on PATH (32 for 1.32, 20 for Debian's 1.20), for the tests that
 * assert what an older kubectl does instead of what it cannot do.
 */
export function kubectlMinor(): Promise<number> {
  minorVersion ??= kubectlOk('/dev/null', ['version', '--client', '-o', 'json']).then((out) => {
    const minor = Number.parseInt((JSON.parse(out) as { clientVersion: { minor: string } }).clientVersion.minor, 10);
    if (!Number.isInteger(minor)) throw new Error(`no minor version in kubectl version output: ${out}`);
    return minor;
  });
  return minorVersion;
}
