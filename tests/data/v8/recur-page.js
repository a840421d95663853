// Self, mutual and anonymous recursion run in a page, profiled by
// Chromium's DevTools protocol (Profiler domain).
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function isEven(n) { let s = 0; for (let i = 0; i < 30; i++) s += i; return n === 0 ? true : isOdd(n - 1); }
function isOdd(n) { return n === 0 ? false : isEven(n - 1); }
function build(d) { return d === 0 ? null : { l: build(d - 1), r: build(d - 1), v: d }; }
function walk(t) { if (!t) return 0; return t.v + fib(t.v % 5 + 6) + walk(t.l) + walk(t.r); }
function run() {
  let s = 0;
  const t = build(13);
  for (let k = 0; k < 60; k++) s += walk(t);
  for (let k = 0; k < 1500000; k++) s += isEven(20 + k % 7) ? 1 : 0;
  s += fib(29);
  const anon = (n) => (n <= 0 ? 0 : 1 + anon(n - 1));
  for (let k = 0; k < 30000; k++) s += anon(200);
  document.getElementById('out').textContent = String(s);
  return s;
}
window.runRecursion = run;
