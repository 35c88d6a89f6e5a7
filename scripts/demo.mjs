#!/usr/bin/env node
// `npm run demo`: index the bundled example transcripts into a throw-away memory, then show
// `funes status`, a recall and a get. Touches nothing outside this checkout.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// HOME points at the examples; models are still looked for in your own Hugging Face cache.
const hfHome = process.env.HF_HOME ?? join(homedir(), ".cache", "huggingface");
const env = {
  ...process.env,
  HOME: join(root, "examples", "home"),
  FUNES_HOME: join(root, ".demo", "funes"),
  HF_HUB_CACHE: process.env.HF_HUB_CACHE ?? join(hfHome, "hub"),
};
rmSync(env.FUNES_HOME, { recursive: true, force: true });

const codex = "019ef2fb-6574-7f83-bd99-9118713271f2";
for (const args of [
  ["index"],
  ["status"],
  ["recall", "portfolio website for a graphic designer", "-k", "2"],
  ["get", codex, `${codex}-0`, "--window", "1", "--format", "agent"],
]) {
  process.stdout.write(`\n$ funes ${args.map((a) => (a.includes(" ") ? `"${a}"` : a)).join(" ")}\n`);
  const r = spawnSync(process.execPath, [join(root, "dist", "cli", "main.js"), ...args], {
    env,
    stdio: "inherit",
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
process.stdout.write(`\n\n(memory written to ${env.FUNES_HOME})\n`);
