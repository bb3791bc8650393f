// Kubeconfig documents for the embedded server's logical clusters.
import yaml from 'js-yaml';

export function kubeconfigYaml(o: { name: string; server: string; caPem: string; token: string }): string {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: o.name, cluster: { server: o.server, 'certificate-authority-data': Buffer.from(o.caPem).toString('base64') } }],
    users: [{ name: `${o.name}-admin`, user: { token: o.token } }],
    contexts: [{ name: o.name, context: { cluster: o.name, user: `${o.name}-admin` } }],
    'current-context': o.name,
    preferences: {},
  };
  return yaml.dump(doc, { lineWidth: -1 });
}
