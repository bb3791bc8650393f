// A RESTMapper: kind -> resource (group, version, plural, namespaced, subresources), from the API
// server's discovery documents. Each group/version is fetched when first needed and cached; a kind
// the cache does not know triggers one refresh of its group/version (a CRD installed later), and
// concurrent lookups share that refresh.
import { type KindRef, splitApiVersion } from '../../kube/object.js';
import type { ResourceInfo } from './interface.js';
import { ApiError } from './errors.js';

/** GETs a discovery path; resolves the parsed JSON, or undefined when the server answers 404. */
export type DiscoveryFetch = (path: string) => Promise<unknown>;

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

interface GroupList {
  groups?: { name: string; versions?: { groupVersion: string }[] }[];
}

type KindTable = Map<string, ResourceInfo>;

/** The error for a kind no served resource has (controller-runtime's NoKindMatchError). */
export function noKindMatch(kind: KindRef, cluster: string): ApiError {
  const { group } = splitApiVersion(kind.apiVersion);
  const message = `no matches for kind "${kind.kind}" in version "${kind.apiVersion}" on cluster ${cluster}`;
  return new ApiError('NotFound', message, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NoKindMatch', message, code: 404, details: { group, kind: kind.kind } });
}

/** True for the error of an unknown kind (as opposed to a missing object). */
export function isNoKindMatch(e: unknown): boolean {
  return e instanceof ApiError && e.status?.reason === 'NoKindMatch';
}

function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

export function parseResourceList(apiVersion: string, doc: unknown): KindTable {
  const { group, version } = splitApiVersion(apiVersion);
  const table: KindTable = new Map();
  const resources = (doc as { resources?: ApiResource[] } | undefined)?.resources ?? [];
  const subresources = new Map<string, string[]>();
  for (const r of resources) {
    const slash = r.name.indexOf('/');
    if (slash < 0) continue;
    const parent = r.name.slice(0, slash);
    subresources.set(parent, [...(subresources.get(parent) ?? []), r.name.slice(slash + 1)]);
  }
  for (const r of resources) {
    if (r.name.includes('/') || table.has(r.kind)) continue;
    table.set(r.kind, {
      group,
      version,
      resource: r.name,
      kind: r.kind,
      namespaced: r.namespaced,
      verbs: r.verbs ?? [],
      subresources: subresources.get(r.name) ?? [],
    });
  }
  return table;
}

export class RestMapper {
  private readonly tables = new Map<string, KindTable>();
  private readonly inFlight = new Map<string, Promise<KindTable>>();
  /** Discovery documents fetched so far (for tests and metrics). */
  fetches = 0;

  constructor(
    private readonly fetch: DiscoveryFetch,
    private readonly cluster = '',
  ) {}

  async resourceFor(kind: KindRef): Promise<ResourceInfo> {
    const cached = this.tables.get(kind.apiVersion)?.get(kind.kind);
    if (cached) return cached;
    const table = await this.refresh(kind.apiVersion);
    const info = table.get(kind.kind);
    if (!info) throw noKindMatch(kind, this.cluster);
    return info;
  }

  /** Fetches one group/version again; concurrent callers share the fetch. */
  refresh(apiVersion: string): Promise<KindTable> {
    const running = this.inFlight.get(apiVersion);
    if (running) return running;
    const p = (async () => {
      this.fetches++;
      const doc = await this.fetch(groupVersionPath(apiVersion));
      const table = parseResourceList(apiVersion, doc);
      this.tables.set(apiVersion, table);
      return table;
    })().finally(() => this.inFlight.delete(apiVersion));
    this.inFlight.set(apiVersion, p);
    return p;
  }

  /** Every served resource (core v1 and every version of every group in `/apis`), refreshed. */
  async allResources(): Promise<ResourceInfo[]> {
    this.fetches++;
    const groups = ((await this.fetch('/apis')) as GroupList | undefined)?.groups ?? [];
    const versions = ['v1', ...groups.flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion))];
    const tables: KindTable[] = [];
    // A few at a time: a cluster serves dozens of group versions.
    for (let i = 0; i < versions.length; i += 8) {
      tables.push(...(await Promise.all(versions.slice(i, i + 8).map((v) => this.refresh(v)))));
    }
    return tables.flatMap((t) => [...t.values()]);
  }

  /** Forgets everything (the next lookups fetch again). */
  reset(): void {
    this.tables.clear();
  }
}
