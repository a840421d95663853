// The program behind node-wall.pb.gz and node-heap.pb.gz: Datadog's
// profiler for Node.js (npm @datadog/pprof, 5.20.0; Apache-2.0) takes a
// wall-time profile (1 ms interval, 3 s) and a heap profile of a script
// with self recursion (fib), mutual recursion (ping, pong) and allocation.
//   npm install @datadog/pprof && node node-prof.js
// writes both profiles, gzipped by the profiler's encoder, in the current
// directory.
const pprof = require('@datadog/pprof');
const fs = require('fs');
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function ping(n) { if (n <= 0) return fib(18); return pong(n - 1) + 1; }
function pong(n) { if (n <= 0) return fib(19); return ping(n - 1) + 1; }
function work(ms) { const end = Date.now() + ms; let s = 0; while (Date.now() < end) { s += ping(12) + fib(20); } return s; }
function allocate() { const a = []; for (let i = 0; i < 2000; i++) a.push(new Array(100).fill(i)); return a; }
async function main() {
  pprof.heap.start(16 * 1024, 64);
  const p = pprof.time.profile({ durationMillis: 3000, intervalMicros: 1000 });
  work(2500); let keep = []; for (let i = 0; i < 50; i++) keep.push(allocate());
  const prof = await p;
  fs.writeFileSync('cpu.pb.gz', pprof.encodeSync ? pprof.encodeSync(prof) : await pprof.encode(prof));
  const h = pprof.heap.profile();
  fs.writeFileSync('heap.pb.gz', pprof.encodeSync ? pprof.encodeSync(h) : await pprof.encode(h));
  console.log(keep.length);
}
main();
