// k8s.io/api core/v1.
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.core;

definePackage(pkg, {
  ConfigMap: `
    metadata 1 meta.ObjectMeta omitempty
    immutable 4 *bool omitempty
    data 2 map[string]string omitempty
    binaryData 3 map[string][]byte omitempty`,
  ConfigMapList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []ConfigMap`,
});

defineKind('', 'v1', 'ConfigMap', `${pkg}.ConfigMap`);
