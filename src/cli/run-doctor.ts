/**
 * `funes doctor`: every check on one screen, each problem with the command that fixes it. Exit 1 when a
 * check failed (a warning alone exits 0; commands/doctor.ts makes the Hub a warning for local-only use).
 */
import { type DoctorCheck, FunesError, runDoctor } from "../commands/index.js";
import { networkEnv } from "../remote/index.js";
import type { CliConfig } from "./config.js";
import { layoutWidth, paint, wrapText } from "./terminal-text.js";

const MARK: Record<DoctorCheck["status"], string> = { ok: "ok", warn: "!!", fail: "XX", skip: "--" };

/** The checks as people read them. */
export function formatDoctor(checks: DoctorCheck[], o: { width: number; color: boolean }): string {
  const p = paint(o.color);
  const tint = { ok: p.green, warn: p.yellow, fail: (s: string) => p.bold(p.yellow(s)), skip: p.dim };
  const nameWidth = Math.max(...checks.map((c) => c.name.length));
  const indent = 4 + nameWidth + 2;
  const lines: string[] = [];
  for (const c of checks) {
    const [first = "", ...rest] = wrapText(c.detail, Math.max(30, o.width - indent));
    lines.push(`${tint[c.status](MARK[c.status])}  ${c.name.padEnd(nameWidth)}  ${first}`);
    for (const r of rest) lines.push(`${" ".repeat(indent)}${r}`);
    if (c.fix !== null && c.status !== "ok") lines.push(`${" ".repeat(indent)}${p.dim("fix:")} ${c.fix}`);
  }
  const failed = checks.filter((c) => c.status === "fail").length;
  const warned = checks.filter((c) => c.status === "warn").length;
  lines.push(
    "",
    failed + warned === 0
      ? "all good"
      : `${failed} problem${failed === 1 ? "" : "s"}, ${warned} warning${warned === 1 ? "" : "s"} — each with its fix above`,
  );
  return `${lines.join("\n")}\n`;
}

/** Runs the checks and prints them. */
export async function runDoctorCommand(flags: { json?: boolean }, cfg: CliConfig): Promise<void> {
  const checks = await runDoctor({
    home: cfg.home,
    funesHome: cfg.funesHome,
    models: cfg.models,
    env: cfg.env,
    nodeVersion: process.versions.node,
    // The same reading of HF_HUB_OFFLINE as every request's (1, true or yes).
    offline: networkEnv(cfg.env).offline,
    now: cfg.now,
  });
  process.stdout.write(
    flags.json === true
      ? `${JSON.stringify(checks, null, 2)}\n`
      : formatDoctor(checks, { width: layoutWidth(cfg.columns), color: cfg.color }),
  );
  const failed = checks.filter((c) => c.status === "fail");
  if (failed.length > 0)
    throw new FunesError(
      "unreadable_source",
      `doctor found ${failed.length} problem${failed.length === 1 ? "" : "s"}: ${failed.map((c) => c.name).join(", ")} — fix what each says above, then run \`funes doctor\` again`,
    );
}
