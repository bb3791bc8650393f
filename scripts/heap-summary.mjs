#!/usr/bin/env node
// Summarizes a V8 heap snapshot (.heapsnapshot, e.g. from `npm run bench:fleet -- --heap-snapshot PATH`)
// without DevTools: self size by constructor, retained sizes from the dominator tree, and the tree
// itself down to the objects that hold more than a given share of the heap.
//
//   node scripts/heap-summary.mjs FILE [--min-percent 1] [--depth 12] [--top 40]
//
// Retained size = what would be freed if the object went (weak edges do not retain). The tree is
// printed from the GC roots down, one line per object with its retainer's edge name, so a line like
// `ManifestReconciler .applied Map  41.2 MiB` says who holds what.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--'));
if (!file) {
  console.error('usage: node scripts/heap-summary.mjs FILE [--min-percent P] [--depth D] [--top N]');
  process.exit(2);
}
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const minPercent = opt('--min-percent', 1);
const maxDepth = opt('--depth', 12);
const top = opt('--top', 40);

const t0 = Date.now();
const progress = (what) => console.error(`  ${((Date.now() - t0) / 1000).toFixed(1)} s: ${what}`);
const snap = JSON.parse(readFileSync(file, 'utf8'));
progress('parsed');
const meta = snap.snapshot.meta;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nTypeOff = meta.node_fields.indexOf('type');
const nNameOff = meta.node_fields.indexOf('name');
const nSizeOff = meta.node_fields.indexOf('self_size');
const nEdgeCountOff = meta.node_fields.indexOf('edge_count');
const eTypeOff = meta.edge_fields.indexOf('type');
const eNameOff = meta.edge_fields.indexOf('name_or_index');
const eToOff = meta.edge_fields.indexOf('to_node');
const nodeTypes = meta.node_types[nTypeOff];
const edgeTypes = meta.edge_types[eTypeOff];
const { nodes, edges, strings } = snap;
const N = nodes.length / NF;

const firstEdge = new Uint32Array(N + 1);
for (let i = 0, e = 0; i < N; i++) {
  firstEdge[i] = e;
  e += nodes[i * NF + nEdgeCountOff] * EF;
  if (i === N - 1) firstEdge[N] = e;
}
const WEAK = edgeTypes.indexOf('weak');
const SHORTCUT = edgeTypes.indexOf('shortcut');
const ELEMENT = edgeTypes.indexOf('element');
const HIDDEN = edgeTypes.indexOf('hidden');
const retains = (t) => t !== WEAK && t !== SHORTCUT;

const typeOf = (i) => nodeTypes[nodes[i * NF + nTypeOff]];
const nameOf = (i) => strings[nodes[i * NF + nNameOff]];
const selfOf = (i) => nodes[i * NF + nSizeOff];
function label(i) {
  const t = typeOf(i);
  const n = nameOf(i);
  if (t === 'object' || t === 'native') return n;
  if (t === 'closure') return `${n || '(anonymous)'}()`;
  if (t === 'string' || t === 'concatenated string' || t === 'sliced string') return 'string';
  return `(${t}) ${n.length > 40 ? `${n.slice(0, 40)}…` : n}`;
}
function edgeName(e) {
  const t = edges[e + eTypeOff];
  const v = edges[e + eNameOff];
  if (t === ELEMENT || t === HIDDEN) return `[${v}]`;
  const s = strings[v];
  return typeof s === 'string' ? (s.length > 40 ? `${s.slice(0, 40)}…` : s) : String(v);
}

// Dominators by Lengauer-Tarjan (with path compression) over the retaining edges from the root (node 0).
const pre = new Int32Array(N).fill(-1); // preorder number
const vertex = new Int32Array(N); // preorder number -> node
const parent = new Int32Array(N).fill(-1);
let count = 0;
{
  const stack = new Int32Array(N);
  const edgePos = new Uint32Array(N);
  let sp = 0;
  stack[sp++] = 0;
  pre[0] = count;
  vertex[count++] = 0;
  edgePos[0] = firstEdge[0];
  while (sp > 0) {
    const v = stack[sp - 1];
    let pushed = false;
    for (let e = edgePos[v]; e < firstEdge[v + 1]; e += EF) {
      if (!retains(edges[e + eTypeOff])) continue;
      const w = edges[e + eToOff] / NF;
      if (pre[w] >= 0) continue;
      edgePos[v] = e + EF;
      pre[w] = count;
      vertex[count++] = w;
      parent[w] = v;
      edgePos[w] = firstEdge[w];
      stack[sp++] = w;
      pushed = true;
      break;
    }
    if (!pushed) sp--;
  }
}
progress(`depth-first order: ${count} nodes`);
// Predecessors (retaining edges between reachable nodes), as CSR.
const predCount = new Uint32Array(N + 1);
for (let v = 0; v < N; v++) {
  if (pre[v] < 0) continue;
  for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) {
    if (!retains(edges[e + eTypeOff])) continue;
    const w = edges[e + eToOff] / NF;
    if (pre[w] >= 0) predCount[w + 1]++;
  }
}
for (let i = 0; i < N; i++) predCount[i + 1] += predCount[i];
const preds = new Int32Array(predCount[N]);
{
  const fill = predCount.slice(0, N);
  for (let v = 0; v < N; v++) {
    if (pre[v] < 0) continue;
    for (let e = firstEdge[v]; e < firstEdge[v + 1]; e += EF) {
      if (!retains(edges[e + eTypeOff])) continue;
      const w = edges[e + eToOff] / NF;
      if (pre[w] >= 0) preds[fill[w]++] = v;
    }
  }
}
progress('predecessors');
const semi = new Int32Array(N); // preorder number of the semidominator
for (let v = 0; v < N; v++) semi[v] = pre[v];
const ancestor = new Int32Array(N).fill(-1);
const best = new Int32Array(N);
for (let v = 0; v < N; v++) best[v] = v;
const idom = new Int32Array(N).fill(-1);
const bucketHead = new Int32Array(N).fill(-1);
const bucketNext = new Int32Array(N).fill(-1);
const path = new Int32Array(N);
function evalNode(v) {
  if (ancestor[v] < 0) return v;
  // Path compression, iteratively: collect the path up to the forest root's child, then fold it.
  let n = 0;
  let x = v;
  while (ancestor[ancestor[x]] >= 0) {
    path[n++] = x;
    x = ancestor[x];
  }
  while (n > 0) {
    const y = path[--n];
    const a = ancestor[y];
    if (semi[best[a]] < semi[best[y]]) best[y] = best[a];
    ancestor[y] = ancestor[a];
  }
  return best[v];
}
for (let i = count - 1; i > 0; i--) {
  const w = vertex[i];
  for (let p = predCount[w]; p < predCount[w + 1]; p++) {
    const u = evalNode(preds[p]);
    if (semi[u] < semi[w]) semi[w] = semi[u];
  }
  const s = vertex[semi[w]];
  bucketNext[w] = bucketHead[s];
  bucketHead[s] = w;
  const pw = parent[w];
  ancestor[w] = pw;
  for (let v = bucketHead[pw]; v >= 0; v = bucketNext[v]) {
    const u = evalNode(v);
    idom[v] = semi[u] < semi[v] ? u : pw;
  }
  bucketHead[pw] = -1;
}
for (let i = 1; i < count; i++) {
  const w = vertex[i];
  if (idom[w] !== vertex[semi[w]]) idom[w] = idom[idom[w]];
}
idom[0] = 0;
progress('dominators');
// Every node in post[] order (dominated nodes before their dominators): reverse preorder.
const post = new Int32Array(count);
for (let i = 0; i < count; i++) post[i] = vertex[count - 1 - i];
const retained = new Float64Array(N);
for (let k = 0; k < count; k++) {
  const v = post[k];
  retained[v] += selfOf(v);
  if (v !== 0) retained[idom[v]] += retained[v];
}
const total = retained[0];
const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
console.log(`${file}: ${N} nodes, ${count} reachable, ${mib(total)} reachable self size`);

// Self size and count by constructor/type; retained size counted once per constructor (only
// objects not dominated by another object of the same constructor: a walk of the dominator tree
// that counts the labels on the current path).
const children = new Map();
for (let k = 0; k < count; k++) {
  const v = post[k];
  if (v === 0) continue;
  const d = idom[v];
  let c = children.get(d);
  if (!c) children.set(d, (c = []));
  c.push(v);
}
const labelIds = new Map();
const labelNames = [];
const labelOf = new Int32Array(N);
for (let k = 0; k < count; k++) {
  const v = post[k];
  const l = label(v);
  let id = labelIds.get(l);
  if (id === undefined) {
    id = labelNames.length;
    labelIds.set(l, id);
    labelNames.push(l);
  }
  labelOf[v] = id;
}
const L = labelNames.length;
const lCount = new Float64Array(L);
const lSelf = new Float64Array(L);
const lRetained = new Float64Array(L);
const onPath = new Int32Array(L);
{
  // Iterative DFS: enter (push children), leave (decrement).
  const stack = [0];
  const leaving = [false];
  while (stack.length > 0) {
    const v = stack.pop();
    const leave = leaving.pop();
    const id = labelOf[v];
    if (leave) {
      onPath[id]--;
      continue;
    }
    lCount[id]++;
    lSelf[id] += selfOf(v);
    if (onPath[id] === 0) lRetained[id] += retained[v];
    onPath[id]++;
    stack.push(v);
    leaving.push(true);
    for (const c of children.get(v) ?? []) {
      stack.push(c);
      leaving.push(false);
    }
  }
}
const byLabel = new Map(labelNames.map((l, i) => [l, { count: lCount[i], self: lSelf[i], retained: lRetained[i] }]));
console.log(`\nby constructor (top ${top} by self size): count, self, retained (outermost)`);
for (const [l, r] of [...byLabel].sort((a, b) => b[1].self - a[1].self).slice(0, top)) {
  console.log(`  ${l.padEnd(50)} ${String(r.count).padStart(9)} ${mib(r.self).padStart(11)} ${mib(r.retained).padStart(11)}`);
}

// The dominator tree from the root, children sorted by retained size, down to minPercent of the total.
/** The name of the edge from the dominator (or the nearest retainer) to `v`. */
function viaEdge(v) {
  const d = idom[v];
  for (let e = firstEdge[d]; e < firstEdge[d + 1]; e += EF) if (edges[e + eToOff] / NF === v) return edgeName(e);
  return '…';
}
const threshold = (total * minPercent) / 100;
console.log(`\ndominator tree (objects retaining at least ${minPercent}% = ${mib(threshold)})`);
function printTree(v, depth) {
  const kids = (children.get(v) ?? []).filter((c) => retained[c] >= threshold).sort((a, b) => retained[b] - retained[a]);
  for (const c of kids) {
    const n = children.get(c)?.length ?? 0;
    console.log(`${'  '.repeat(depth)}.${viaEdge(c)} ${label(c)}  ${mib(retained[c])} (${n} dominated children)`);
    if (depth < maxDepth) printTree(c, depth + 1);
  }
}
printTree(0, 1);

// --chain N: follows the N-th biggest child of the root down its largest child, and prints at
// every level the other dominated children (closures and contexts name the code that built it).
const chainArg = args.indexOf('--chain');
if (chainArg >= 0) {
  const rootKids = (children.get(0) ?? []).sort((a, b) => retained[b] - retained[a]);
  let v = rootKids[Number(args[chainArg + 1])];
  console.log(`\nchain from ${label(v)} (${mib(retained[v])})`);
  for (let depth = 0; depth < 400 && v !== undefined; depth++) {
    const kids = (children.get(v) ?? []).sort((a, b) => retained[b] - retained[a]);
    const others = kids.slice(1, 8).map((c) => `.${viaEdge(c)} ${label(c)} ${(retained[c] / 1024).toFixed(1)} KiB`);
    if (depth < 30 || depth % 50 === 0) console.log(`  ${depth}: ${label(v)} ${mib(retained[v])}; others: ${others.join('; ')}`);
    v = kids[0];
  }
}

// --breakdown LABEL: what objects of one constructor (e.g. HttpClient) hold, summed over all of them:
// their dominated children by edge and constructor, two levels deep.
const breakdownArg = args.indexOf('--breakdown');
if (breakdownArg >= 0) {
  const want = args[breakdownArg + 1];
  const sums = new Map();
  let n = 0;
  let sum = 0;
  const add = (key, bytes) => sums.set(key, (sums.get(key) ?? 0) + bytes);
  for (let k = 0; k < count; k++) {
    const v = post[k];
    if (label(v) !== want) continue;
    n++;
    sum += retained[v];
    for (const c of children.get(v) ?? []) {
      const k1 = `.${viaEdge(c)} ${label(c)}`;
      add(k1, retained[c]);
      for (const g of children.get(c) ?? []) add(`${k1} .${viaEdge(g)} ${label(g)}`, retained[g]);
    }
  }
  console.log(`\n${n} x ${want}: ${mib(sum)} retained, ${n ? (sum / n / 1024).toFixed(1) : 0} KiB each; per object:`);
  for (const [key, bytes] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(bytes / n / 1024).toFixed(2).padStart(8)} KiB  ${key}`);
}
