import { describe, expect, it } from "vitest";
import { editTrust, snakeEvent, trustHash } from "./trust.js";

describe("codex hook trust", () => {
  it("names events as Codex does", () => {
    expect(snakeEvent("SessionStart")).toBe("session_start");
    expect(snakeEvent("Stop")).toBe("stop");
    expect(snakeEvent("UserPromptSubmit")).toBe("user_prompt_submit");
  });

  it("hashes the normalised handler with sorted keys, defaults filled in", () => {
    const a = trustHash("Stop", { type: "command", command: "x", timeout: 15, statusMessage: "s" });
    const b = trustHash("Stop", {
      statusMessage: "s",
      command: "x",
      type: "command",
      timeout: 15,
      async: false,
    });
    expect(a).toBe(b);
    expect(a).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(trustHash("Stop", { command: "x" })).toBe(trustHash("Stop", { command: "x", timeout: 600 }));
    expect(trustHash("Stop", { command: "x" })).not.toBe(trustHash("SessionStart", { command: "x" }));
  });

  it("adds and removes its tables leaving every other byte as it was", () => {
    const user = '# my codex config\nmodel = "o4"\n\n[profiles.fast]\nmodel = "mini"\n';
    const entries = [
      { key: "/h/.codex/hooks.json:stop:1:0", hash: "sha256:aa" },
      { key: "/h/.codex/hooks.json:session_start:0:0", hash: "sha256:bb" },
    ];
    const added = editTrust(user, new Set(), entries);
    expect(added.startsWith(user)).toBe(true);
    expect(added).toContain('[hooks.state."/h/.codex/hooks.json:stop:1:0"]\ntrusted_hash = "sha256:aa"\n');
    // Another tool appends after funes's tables; removing funes's keeps what it wrote.
    const later = `${added}\n[mcp_servers.funes]\ncommand = "funes"\n`;
    const removed = editTrust(later, new Set(entries.map((e) => e.key)), []);
    expect(removed).toBe(`${user}\n[mcp_servers.funes]\ncommand = "funes"\n`);
    expect(editTrust(added, new Set(entries.map((e) => e.key)), [])).toBe(user);
    // Re-adding replaces rather than duplicates.
    const again = editTrust(added, new Set(), entries);
    expect(again).toBe(added);
    expect(editTrust(editTrust(null, new Set(), entries), new Set(entries.map((e) => e.key)), [])).toBe("");
  });

  it("leaves a table already right where it stands, after another tool's table too, and fixes a stale hash in place", () => {
    const entries = [{ key: "/h/.codex/hooks.json:stop:0:0", hash: "sha256:aa" }];
    const added = editTrust('model = "o4"\n', new Set(), entries);
    // Codex's `mcp add` appended its table after funes's: a second add keeps both where they are.
    const later = `${added}\n[mcp_servers.funes]\ncommand = "funes"\n`;
    expect(editTrust(later, new Set(entries.map((e) => e.key)), entries)).toBe(later);
    const stale = later.replace('"sha256:aa"', '"sha256:00"');
    expect(editTrust(stale, new Set(), entries)).toBe(later);
  });
});
