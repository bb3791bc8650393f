// A long-running kubectl (`get -w`) whose output lines a test reads as they come.
import { type ChildProcess, spawn } from 'node:child_process';
import { waitFor } from './wait.js';

export class KubectlStream {
  private readonly child: ChildProcess;
  private out = '';
  private err = '';

  constructor(kubeconfig: string, args: string[]) {
    this.child = spawn('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (s: string) => (this.out += s));
    this.child.stderr!.setEncoding('utf8').on('data', (s: string) => (this.err += s));
  }

  /** Complete lines written to stdout so far. */
  lines(): string[] {
    const complete = this.out.slice(0, this.out.lastIndexOf('\n') + 1);
    return complete.split('\n').filter((l) => l !== '');
  }

  /** Waits until stdout holds at least `count` lines; returns them. */
  async waitForLines(count: number, timeoutMs = 20_000): Promise<string[]> {
    try {
      return await waitFor(`${count} lines of kubectl output`, () => (this.lines().length >= count ? this.lines() : undefined), timeoutMs);
    } catch (e) {
      throw new Error(`${(e as Error).message}\nstdout:\n${this.out}\nstderr:\n${this.err}`, { cause: e });
    }
  }

  /** Ends kubectl (it watches until stopped). */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    await exited;
  }
}
