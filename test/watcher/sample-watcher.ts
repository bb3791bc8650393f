// A Watcher of a sample resource (group sample.kyma-project.io), for the Watcher tests to edit.
import { Watcher, type WatcherObject } from '../../src/api/operator/index.js';

export function sampleWatcher(name: string, namespace = 'kcp-system', edit: (w: WatcherObject) => void = () => undefined): WatcherObject {
  const w: WatcherObject = {
    apiVersion: Watcher.apiVersion,
    kind: Watcher.kind,
    metadata: { name, namespace },
    spec: {
      manager: 'sample-manager',
      serviceInfo: { name: 'sample-listener', namespace, port: 9090 },
      labelsToWatch: { 'sample.kyma-project.io/watched': 'true' },
      resourceToWatch: { group: 'sample.kyma-project.io', version: 'v1alpha1', resource: 'samples' },
      field: 'spec',
      gateway: { selector: { matchLabels: { 'operator.kyma-project.io/watcher-gateway': 'default' } } },
    },
  };
  edit(w);
  return w;
}
