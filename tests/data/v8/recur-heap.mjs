// Allocation under self and mutual recursion, for the heap profile fixtures:
// node runs this file (node --heap-prof; an ES module, whose functions node
// names by URL and position in a heap profile as in a CPU profile), a page
// calls runAllocations() (Chromium's HeapProfiler domain). What is allocated
// stays reachable from globalThis: a heap profile holds the sampled objects
// still alive when it is taken.
const keep = (globalThis.keep = []);
function build(d) { return d === 0 ? { leaf: new Array(6).fill(0) } : { l: build(d - 1), r: build(d - 1), v: [d] }; }
function evens(n) { keep.push({ n, pad: new Array(4).fill(n) }); return n === 0 ? 0 : odds(n - 1); }
function odds(n) { keep.push([n, n, n]); return n === 0 ? 1 : evens(n - 1); }
function chain(n) { const o = { n, next: null }; if (n > 0) o.next = chain(n - 1); return o; }
const deep = (n) => (n === 0 ? keep.push(new Array(12).fill(n)) : deep(n - 1));
function runAllocations() {
  keep.push(build(11));
  for (let k = 0; k < 150; k++) evens(40);
  keep.push(chain(600)); // deeper than the 128 frames V8 keeps of a stack
  for (let k = 0; k < 150; k++) deep(200);
  return keep.length;
}
if (typeof window === 'undefined') runAllocations();
else window.runAllocations = runAllocations;
