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

/** kubectl's minor version (32 for 1.32; Debian's is 1.20), for commands older clients lack. */
export async function kubectlMinorVersion(kubeconfig: string): Promise<number> {
  const version = JSON.parse(await kubectlOk(kubeconfig, ['version', '--client', '-o', 'json'])) as { clientVersion: { minor: string } };
  return parseInt(version.clientVersion.minor, 10);
}
