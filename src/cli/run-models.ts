/**
 * `funes models [status|pull]`.
 */
import { FunesError, type ModelReport, modelsStatus, pullModels } from "../commands/index.js";
import type { CliConfig } from "./config.js";
import { ProgressLine } from "./progress.js";

function formatReports(reports: ModelReport[], hubCache: string): string {
  let out = `model cache: ${hubCache}\n`;
  for (const r of reports) {
    out += `${r.role}: ${r.repo} @ ${r.revision}${r.precision === "int8" ? " (int8, derived from its fp32 file on first use)" : ""}\n`;
    out +=
      r.dir !== null
        ? `  ready: ${r.dir}${r.from === "folder" ? " (folder variable)" : ""}\n`
        : `  missing: ${r.note}\n`;
  }
  return out;
}

/** Shows or pulls the models. */
export async function runModels(
  action: unknown,
  flags: { json?: boolean; reranker?: unknown },
  base: CliConfig,
): Promise<void> {
  const cfg =
    flags.reranker === undefined
      ? base
      : { ...base, models: { ...base.models, reranker: String(flags.reranker) } };
  const what = action === undefined ? "status" : String(action);
  let reports: ModelReport[];
  if (what === "status") reports = modelsStatus(cfg.models);
  else if (what === "pull") {
    const bar = new ProgressLine(process.stderr, cfg.stderrTty && flags.json !== true);
    const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
    try {
      reports = await pullModels(cfg.models, (spec, p) =>
        bar.update(
          p.bytes,
          p.total ?? p.bytes,
          `${spec.repo} ${p.file} ${mb(p.bytes)}${p.total !== null ? ` / ${mb(p.total)}` : ""}`,
          false,
        ),
      );
    } finally {
      bar.clear();
    }
  } else throw new FunesError("bad_input", `unknown models action "${what}" (expected status or pull)`);
  process.stdout.write(
    flags.json === true
      ? `${JSON.stringify(reports, null, 2)}\n`
      : formatReports(reports, cfg.models.hubCache),
  );
}
