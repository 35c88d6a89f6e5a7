// Preloaded into the benchmarked CLI: writes the process's peak RSS (KiB) to $BENCH_RSS_FILE at exit.
const { writeFileSync } = require("node:fs");
process.on("exit", () => {
  if (process.env.BENCH_RSS_FILE)
    writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS));
});
