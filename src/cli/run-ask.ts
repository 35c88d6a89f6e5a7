/**
 * `funes ask claude|codex|gemini|qwen|opencode|copilot <question…>`.
 */
import { ask, DEFAULT_ASK_TIMEOUT_S, FunesError, listValues } from "../commands/index.js";
import { formatRecallAgent } from "../format/index.js";
import type { CliConfig } from "./config.js";
import { recallModels } from "./run-server.js";
import { clip, flattenSpaces, layoutWidth } from "./terminal-text.js";

/** Flags of `funes ask`. */
export interface AskFlags {
  memory?: unknown;
  timeout?: unknown;
}

/** Asks the agent and streams its answer to stdout; progress words go to stderr on a terminal. */
export async function runAsk(agent: unknown, words: unknown, flags: AskFlags, cfg: CliConfig): Promise<void> {
  const question = (Array.isArray(words) ? words : [words]).filter((w) => w !== undefined).join(" ");
  const timeoutS =
    flags.timeout === undefined || !/^\d+(\.\d+)?$/.test(String(flags.timeout).trim())
      ? flags.timeout === undefined
        ? DEFAULT_ASK_TIMEOUT_S
        : Number.NaN
      : Number(flags.timeout);
  if (!Number.isFinite(timeoutS) || timeoutS <= 0)
    throw new FunesError(
      "bad_input",
      `--timeout takes a number of seconds > 0, not "${String(flags.timeout)}" — try --timeout 120`,
    );
  const models = recallModels(cfg);
  // On a terminal the status line counts the seconds the agent has taken, so a slow model looks alive. It
  // is kept to one row (cut to the terminal's width), so each redraw's return and erase removes it whole.
  const started = cfg.now();
  const width = layoutWidth(cfg.columns ?? (process.stderr.columns || null));
  let current = "";
  const draw = () => {
    if (!cfg.stderrTty) return;
    const s = Math.floor((cfg.now() - started) / 1000);
    const text = current === "" || s < 1 ? current : `${current} ${s} s`;
    process.stderr.write(`\r\x1b[2K${text === "" ? "" : clip(flattenSpaces(text), width - 1)}`);
  };
  // Erasing only a status line that is showing: answer text may share the terminal's current line.
  const status = (text: string) => {
    if (text === "" && current === "") return;
    current = text;
    draw();
  };
  const ticker = cfg.stderrTty ? setInterval(() => current !== "" && draw(), 1000) : undefined;
  ticker?.unref();
  let wrote = false;
  try {
    const r = await ask(
      {
        agent: String(agent),
        question,
        memory: listValues(flags.memory),
        timeoutS,
        env: cfg.env,
        now: cfg.now(),
        passages: formatRecallAgent,
        onStatus: status,
        onText: (text) => {
          clearInterval(ticker);
          status("");
          wrote = true;
          process.stdout.write(text);
        },
      },
      cfg,
      models,
    );
    status("");
    if (!r.streamed) process.stdout.write(r.answer.trimEnd());
    process.stdout.write("\n");
  } catch (err) {
    status("");
    if (wrote) process.stdout.write("\n");
    throw err;
  } finally {
    clearInterval(ticker);
    await models.close();
  }
}
