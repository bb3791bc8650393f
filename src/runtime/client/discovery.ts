// A RESTMapper: kind -> resource (group, version, plural, namespaced, subresources), from the API
// server's discovery documents. Each group/version is fetched when first needed and cached; a kind
// the cache does not know triggers one refresh of its group/version (a CRD installed later), and
// concurrent lookups share that refresh.
//
// Shared discovery (for thousands of clients of alike clusters): the mappers given one
// SharedDiscovery ask their server's version once (`GET /version`) and take a group/version's table
// from whichever client of a server with that version fetched it first, so 10,000 runtimes of one
// Kubernetes version cost one discovery per group/version, not 10,000. A cluster may serve a kind
// the shared table lacks (a CRD installed there only): the lookup misses, the client fetches that
// group/version itself and the newer table becomes the shared one. It may also lack a kind the shared
// table has: the request answers 404 for the resource (not for an object), and the client then
// fetches the group/version itself (`confirm`), and answers NoKindMatch or retries on what its server
// serves (http-client.ts).
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

/** Versions of servers whose tables are kept (least recently used out). */
const MAX_SHARED_VERSIONS = 16;

/** Discovery tables shared by the mappers of many clients, per server version and group/version. */
export class SharedDiscovery {
  private readonly byVersion = new Map<string, Map<string, Promise<KindTable>>>();

  /** The table of a group/version for servers of `version`, loaded with `load` by the first asking. */
  table(version: string, apiVersion: string, load: () => Promise<KindTable>): Promise<KindTable> {
    const tables = this.tablesOf(version);
    let p = tables.get(apiVersion);
    if (!p) {
      p = load();
      tables.set(apiVersion, p);
      // A failed load is not kept: the next client tries again.
      p.catch(() => tables.get(apiVersion) === p && tables.delete(apiVersion));
    }
    return p;
  }

  /** A client fetched a group/version itself: the newest table is the shared one. */
  update(version: string, apiVersion: string, table: KindTable): void {
    this.tablesOf(version).set(apiVersion, Promise.resolve(table));
  }

  /** Server versions with tables (for tests and diagnostics). */
  versions(): string[] {
    return [...this.byVersion.keys()];
  }

  private tablesOf(version: string): Map<string, Promise<KindTable>> {
    let tables = this.byVersion.get(version);
    if (tables) {
      this.byVersion.delete(version);
    } else {
      tables = new Map();
      for (const oldest of this.byVersion.keys()) {
        if (this.byVersion.size < MAX_SHARED_VERSIONS) break;
        this.byVersion.delete(oldest);
      }
    }
    this.byVersion.set(version, tables);
    return tables;
  }
}

/** A server's version as discovery keys it: gitVersion and platform of `GET /version`. */
function versionKey(doc: unknown): string {
  const v = doc as { gitVersion?: string; platform?: string } | undefined;
  return `${v?.gitVersion ?? 'unknown'} ${v?.platform ?? ''}`;
}

export class RestMapper {
  private readonly tables = new Map<string, KindTable>();
  private readonly inFlight = new Map<string, Promise<KindTable>>();
  /** Group/versions whose table came from the shared discovery, not from this mapper's server. */
  private readonly borrowed = new Set<string>();
  private version: Promise<string> | undefined;
  /** Discovery documents fetched so far (for tests and metrics; `/version` included). */
  fetches = 0;

  constructor(
    private readonly fetch: DiscoveryFetch,
    private readonly cluster = '',
    private readonly shared?: SharedDiscovery,
  ) {}

  async resourceFor(kind: KindRef): Promise<ResourceInfo> {
    const cached = this.tables.get(kind.apiVersion)?.get(kind.kind);
    if (cached) return cached;
    if (this.shared && !this.tables.has(kind.apiVersion)) {
      const version = await this.serverVersion();
      let own = false;
      const table = await this.shared.table(version, kind.apiVersion, () => {
        own = true;
        return this.refresh(kind.apiVersion);
      });
      if (!own && !this.tables.has(kind.apiVersion)) {
        this.tables.set(kind.apiVersion, table);
        this.borrowed.add(kind.apiVersion);
      }
      const info = table.get(kind.kind);
      if (info) return info;
      if (own) throw noKindMatch(kind, this.cluster);
    }
    // Not known (yet): what this client's server serves decides, and tells the other clients.
    const table = await this.refresh(kind.apiVersion);
    if (this.shared) this.shared.update(await this.serverVersion(), kind.apiVersion, table);
    const info = table.get(kind.kind);
    if (!info) throw noKindMatch(kind, this.cluster);
    return info;
  }

  /**
   * Forgets what was discovered (the server version and every group/version's table): the next
   * request of each kind asks again (shared tables of the server version first). For a client kept
   * for a long time, whose server may have been upgraded or stopped serving a version meanwhile.
   */
  forget(): void {
    this.tables.clear();
    this.borrowed.clear();
    this.version = undefined;
  }

  /** Whether the kind's table came from another client (a 404 for its resource may mean this server differs). */
  isBorrowed(kind: KindRef): boolean {
    return this.borrowed.has(kind.apiVersion);
  }

  /**
   * The kind as this client's own server serves it (after a 404 for a resource the shared table
   * has): fetches its group/version; NoKindMatch when the server does not serve the kind.
   */
  async confirm(kind: KindRef): Promise<ResourceInfo> {
    const info = (await this.refresh(kind.apiVersion)).get(kind.kind);
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
      this.borrowed.delete(apiVersion);
      return table;
    })().finally(() => this.inFlight.delete(apiVersion));
    this.inFlight.set(apiVersion, p);
    return p;
  }

  private serverVersion(): Promise<string> {
    if (!this.version) {
      this.fetches++;
      const p = this.fetch('/version').then(versionKey);
      this.version = p;
      p.catch(() => this.version === p && (this.version = undefined));
    }
    return this.version;
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
    this.borrowed.clear();
    this.version = undefined;
  }
}
