// Finding the KCP the CLI talks to: `--kubeconfig FILE`, else `--data-dir DIR` (DIR/kcp.kubeconfig, what
// `kcp up` writes), else $KUBECONFIG (as `kcp up` suggests), else `.kcp/kcp.kubeconfig`; and the client
// and namespace the commands share.
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { Namespaces } from '../api/operator/index.js';
import { type Client, clientFromKubeconfig, isUnreachable } from '../runtime/client/index.js';
import { type FlagTable, flagString, type ParsedArgs, UsageError } from './args.js';
import { type CliOutput, processOutput, takeOutputFormat } from './output.js';

/** Data directory of `kcp up` when --data-dir is not given. */
export const DEFAULT_DATA_DIR = '.kcp';
/** File in the data directory holding the KCP's kubeconfig. */
export const KCP_KUBECONFIG_FILE = 'kcp.kubeconfig';

/** Flags of every command that talks to the control plane: where it is, the namespace, the output format. */
export const KCP_FLAGS: FlagTable = { kubeconfig: 'value', 'data-dir': 'value', namespace: 'value', output: 'value' };

/** What every command of the CLI for people works with. */
export interface CliContext {
  /** Client of the control plane. */
  kcp: Client;
  /** Namespace of Runtimes, Kymas, the module catalog and kubeconfig Secrets (`kcp-system`). */
  namespace: string;
  output: CliOutput;
  signal?: AbortSignal;
  /** Poll interval of `--wait` (default 500 ms). */
  pollMs?: number;
  now?: () => number;
}

/** Path of the KCP kubeconfig the flags point at. */
export function kcpKubeconfigPath(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): string {
  const explicit = flagString(args, 'kubeconfig');
  if (explicit) return resolve(explicit);
  const dataDir = flagString(args, 'data-dir');
  if (dataDir) return resolve(join(dataDir, KCP_KUBECONFIG_FILE));
  // Like kubectl, the first file of a KUBECONFIG list that exists; a KUBECONFIG naming no file is an
  // error rather than a silent fall-back to another control plane.
  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((p) => p !== '');
  const fromEnv = listed.find((p) => existsSync(p));
  if (fromEnv) return resolve(fromEnv);
  if (listed.length > 0) throw new UsageError(`KUBECONFIG=${env.KUBECONFIG ?? ''} names no existing file (unset it, or pass --kubeconfig FILE or --data-dir DIR)`);
  return resolve(join(DEFAULT_DATA_DIR, KCP_KUBECONFIG_FILE));
}

/** A context for a command run from the shell: reads the kubeconfig, connects, stops on Ctrl-C. */
export function connect(args: ParsedArgs): CliContext & { close(): void } {
  const path = kcpKubeconfigPath(args);
  if (!existsSync(path)) {
    const hint = args.flags.has('kubeconfig') ? '' : ' (start a control plane with `kcp up`, or pass --kubeconfig FILE or --data-dir DIR)';
    throw new UsageError(`no control plane kubeconfig at ${path}${hint}`);
  }
  // Few retries: a person waits for the answer, and a stopped `kcp up` should say so quickly.
  const kcp = clientFromKubeconfig(readFileSync(path, 'utf8'), { retries: 2, requestTimeoutMs: 15_000 });
  const abort = new AbortController();
  const onSignal = () => abort.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  return {
    kcp,
    namespace: flagString(args, 'namespace', Namespaces.ControlPlane) ?? Namespaces.ControlPlane,
    output: processOutput,
    signal: abort.signal,
    close() {
      process.off('SIGINT', onSignal);
      kcp.close();
    },
  };
}

/** Runs `fn` with a context from the flags and closes it afterwards. */
export async function withKcp<T>(args: ParsedArgs, fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  takeOutputFormat(args); // a bad -o is a usage error before anything is asked of the control plane
  const ctx = connect(args);
  try {
    return await fn(ctx);
  } catch (e) {
    if (isUnreachable(e)) throw new Error(`cannot reach the control plane: ${e.message} (is \`kcp up\` running?)`, { cause: e });
    throw e;
  } finally {
    ctx.close();
  }
}

export { processOutput };
