// k8s.io/api events/v1: Event (fields as of Kubernetes 1.32).
import { PACKAGE_ALIASES, defineKind, definePackage } from './catalog.js';

const pkg = PACKAGE_ALIASES.events;

definePackage(pkg, {
  // Unlike most kinds, metadata has no omitempty here.
  Event: `
    metadata 1 meta.ObjectMeta
    eventTime 2 meta.MicroTime
    series 3 *EventSeries omitempty
    reportingController 4 string omitempty
    reportingInstance 5 string omitempty
    action 6 string omitempty
    reason 7 string omitempty
    regarding 8 core.ObjectReference omitempty
    related 9 *core.ObjectReference omitempty
    note 10 string omitempty
    type 11 string omitempty
    deprecatedSource 12 core.EventSource omitempty
    deprecatedFirstTimestamp 13 meta.Time omitempty
    deprecatedLastTimestamp 14 meta.Time omitempty
    deprecatedCount 15 int32 omitempty`,
  EventSeries: `
    count 1 int32
    lastObservedTime 2 meta.MicroTime`,
  EventList: `
    metadata 1 meta.ListMeta omitempty
    items 2 []Event`,
});

defineKind('events.k8s.io', 'v1', 'Event', `${pkg}.Event`);
