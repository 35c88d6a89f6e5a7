// Preloaded into the benchmarked CLI (and, through its Node flags, into the index workers it starts):
// appends "<pid> <peak RSS KiB>" to $BENCH_RSS_FILE at exit; bench/rss.ts reads it.
// On Linux it is /proc/self/status's VmHWM: `resourceUsage().maxRSS` keeps the high-water mark from
// before exec, so a child of a large bench process reports the parent's RSS (an 800 MB parent gives a
// `node -e ''` child 823 MB), which is where recall's "1.6 GB" at 100k came from.
const { appendFileSync, readFileSync } = require("node:fs");
function peakKiB() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (m) return Number(m[1]);
  } catch {}
  return process.resourceUsage().maxRSS;
}
process.on("exit", () => {
  if (process.env.BENCH_RSS_FILE) appendFileSync(process.env.BENCH_RSS_FILE, `${process.pid} ${peakKiB()}\n`);
});
