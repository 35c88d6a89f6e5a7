/**
 * `funes ask gemini`: `gemini -p` in plan mode (read-only tools; Gemini has no switch for none), no MCP
 * server started, no extension, its stream-json events read as they come. Gemini has no switch to keep
 * the session and runs its hooks whatever the workspace says, so the run gets a throw-away
 * `GEMINI_CLI_HOME` holding the user's settings without hooks and MCP servers, and their credentials.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AskSpec } from "../agent.js";
import { readJsonText } from "../json-text.js";
import { geminiDir } from "./setup.js";

/** Gemini CLI's files a run needs to sign in as the user (settings, a `.env`, the Google login). */
const GEMINI_CREDENTIALS = [".env", "oauth_creds.json", "google_accounts.json", "installation_id"];

/**
 * A throw-away home for one Gemini run: `.gemini/settings.json` is the user's without hooks and MCP servers,
 * and the credential files are copied beside it (mode 0700 folder), so the run signs in as the user but
 * writes its session, and fires hooks, nowhere the user's memory is read from.
 */
function geminiAside(env: Record<string, string | undefined>): string {
  const home = mkdtempSync(join(tmpdir(), "funes-ask-gemini-"));
  const from = geminiDir({ home: env.HOME ?? "", env });
  const to = join(home, ".gemini");
  mkdirSync(to, { recursive: true, mode: 0o700 });
  // No settings (or unreadable ones): Gemini's defaults, with the key from the environment.
  const path = join(from, "settings.json");
  const settings = (existsSync(path) ? readJsonText(readFileSync(path, "utf8")) : null) ?? {};
  const { hooks: _hooks, mcpServers: _servers, ...kept } = settings;
  writeFileSync(join(to, "settings.json"), JSON.stringify(kept), { mode: 0o600 });
  for (const f of GEMINI_CREDENTIALS) if (existsSync(join(from, f))) copyFileSync(join(from, f), join(to, f));
  return home;
}

export const geminiAsk: AskSpec = {
  prepare: async ({ prompt, env }) => {
    const aside = geminiAside(env);
    return {
      args: [
        "--skip-trust",
        "--approval-mode",
        "plan",
        // No server has this name: none starts.
        "--allowed-mcp-server-names",
        "funes-ask-none",
        "-e",
        "none",
        "-o",
        "stream-json",
        "-p",
        prompt,
      ],
      env: { GEMINI_CLI_HOME: aside },
      cwd: aside,
      cleanup: () => rmSync(aside, { recursive: true, force: true }),
    };
  },
  parse: (e) => {
    if (e.type === "message" && e.role === "assistant" && typeof e.content === "string")
      return { kind: "text", text: e.content };
    return e.type === "init" ? { kind: "status", text: "thinking…" } : { kind: "none" };
  },
};
