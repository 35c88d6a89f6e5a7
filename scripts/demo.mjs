#!/usr/bin/env node
// `npm run demo`: index the bundled example transcripts into a throw-away memory, then show
// `funes status` and a keyword recall. Touches nothing outside this checkout.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const env = {
  ...process.env,
  HOME: join(root, "examples", "home"),
  FUNES_HOME: join(root, ".demo", "funes"),
};
rmSync(env.FUNES_HOME, { recursive: true, force: true });

for (const args of [
  ["index"],
  ["status"],
  ["recall", "portfolio website for a graphic designer", "-k", "2"],
]) {
  process.stdout.write(`\n$ funes ${args.map((a) => (a.includes(" ") ? `"${a}"` : a)).join(" ")}\n`);
  const r = spawnSync(process.execPath, [join(root, "dist", "cli", "main.js"), ...args], {
    env,
    stdio: "inherit",
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
process.stdout.write(`\n\n(memory written to ${env.FUNES_HOME})\n`);
