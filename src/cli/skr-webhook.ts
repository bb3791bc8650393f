// `kcp skr-webhook`: the runtime watcher's webhook, as the lifecycle manager runs it in every
// runtime (Deployment skr-webhook, kyma-system). Configured by upstream's environment variables, so
// the Deployment is the same whether it runs this image or upstream's runtime-watcher.
import { createLogger } from '../runtime/log.js';
import { startSkrWebhookServer, webhookConfigFromEnv } from '../watcher/webhook-server.js';
import { type ParsedArgs, UsageError } from './args.js';
import type { Command } from './command.js';

export const SKR_WEBHOOK_USAGE = `Usage:
  kcp skr-webhook
      Serves the runtime watcher's validating webhook on POST /validate/<manager> (TLS) and /metrics.
      Every admission request is allowed; a create, a delete, or an update that changed the watched
      field is sent to the KCP listener over mutual TLS (POST https://KCP_ADDR/v2/<manager>/event).
      Configured by the environment, as upstream's runtime-watcher:
        WEBHOOK_PORT   webhook port [8443]
        METRICS_PORT   /metrics port [2112]
        KCP_ADDR       host:port of the KCP listener (required)
        KCP_CONTRACT   v2 (the only contract spoken)
        TLS_CERT, TLS_KEY, CA_CERT
                       files of the runtime's key pair (serving and client certificate) and the
                       watcher CA bundle (required; Secret skr-webhook-tls mounted at /app/etc/ssl)`;

export async function runSkrWebhook(args: ParsedArgs): Promise<void> {
  if (args.positionals.length > 0) throw new UsageError(`kcp skr-webhook takes no arguments or flags; it reads its environment (see kcp skr-webhook --help)`);
  let config;
  try {
    config = webhookConfigFromEnv(process.env);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const log = createLogger({ name: 'skr-webhook' });
  const server = await startSkrWebhookServer(config, log);
  process.stdout.write(`skr-webhook serving on ${server.url} (metrics ${server.metricsUrl}), events to ${config.kcpAddress}\n`);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      (e: unknown) => {
        process.stderr.write(`skr-webhook: stop failed: ${(e as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export const command: Command = {
  summary: 'the runtime watcher\'s webhook (runs in every runtime; configured by its environment)',
  usage: SKR_WEBHOOK_USAGE,
  flags: () => ({}),
  run: runSkrWebhook,
};
