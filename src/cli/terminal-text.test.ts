import { describe, expect, it } from "vitest";
import { sessionIdCore } from "../commands/index.js";
import {
  clip,
  fitText,
  flattenSpaces,
  layoutWidth,
  readableTool,
  sessionLabels,
  terminalRows,
  wrapText,
} from "./terminal-text.js";

describe("terminal text", () => {
  it("shows a tool call's input as fields with its strings unescaped", () => {
    expect(readableTool('[tool_use Bash] {"command":"ls -la\\ncat \\"a b\\"","timeout":5}', "tool_use")).toBe(
      '[tool_use Bash] command: ls -la\ncat "a b"\ntimeout: 5',
    );
    // A piece of a split block is not whole JSON: its escapes are undone all the same.
    expect(readableTool('"content":"line one\\nline \\\\two', "tool_use")).toBe(
      '"content":"line one\nline \\two',
    );
    expect(readableTool("[tool_result Bash] plain output", "tool_result")).toBe(
      "[tool_result Bash] plain output",
    );
    expect(readableTool("text with \\n kept", "text")).toBe("text with \\n kept");
  });

  it("a control character escaped in a tool call's JSON is shown as a control picture, not decoded to the raw character", () => {
    // How a stored tool call holds a command that printed a clipboard write and a window title.
    const stored = `[tool_use Bash] ${JSON.stringify({ command: "printf '\u001b]52;c;Y3Vy\u0007' \u202e\u0000 \u009b2J" })}`;
    const shown = readableTool(stored, "tool_use");
    expect(shown).toBe("[tool_use Bash] command: printf '␛]52;c;Y3Vy␇' \\u202e␀ \\x9b2J");
    // A split piece that is not whole JSON: its newline escapes are undone, nothing else.
    expect(readableTool('"command":"a\\u001b[2J\\nb', "tool_use")).toBe('"command":"a\\u001b[2J\nb');
  });

  it("tells sessions apart: timestamped file names by what follows the timestamp, collisions made longer", () => {
    const pi = [
      "2026-01-05T10-20-30-123Z_7028acdd-e85a-4fa0-88a5-71f4103333a0",
      "2026-01-05T11-00-00-000Z_9b1e0c2f-0000-4000-8000-000000000000",
    ];
    expect([...sessionLabels(pi, sessionIdCore).values()]).toEqual(["7028acdd", "9b1e0c2f"]);
    expect([...sessionLabels(["abcdefgh-1111", "abcdefgh-2222", "zz"], sessionIdCore).values()]).toEqual([
      "abcdefgh-111",
      "abcdefgh-222",
      "zz",
    ]);
  });

  it("wraps at the width without breaking words, splitting only words longer than a line", () => {
    expect(wrapText("the quick brown fox jumps", 10)).toEqual(["the quick", "brown fox", "jumps"]);
    expect(wrapText("a 0123456789abc", 10)).toEqual(["a", "0123456789", "abc"]);
    expect(clip("abcdef", 4)).toBe("abc…");
    expect(flattenSpaces(" a\n\n b\tc ")).toBe("a b c");
    // A terminal whose width is not known is taken to be 80 columns, a terminal's default.
    expect(layoutWidth(null)).toBe(80);
    expect(layoutWidth(20)).toBe(40);
    expect(layoutWidth(200)).toBe(200);
  });

  it("fits a note to the terminal: wrapped at spaces, continued under its text; piped output left whole", () => {
    const note =
      "note: 3 copies of recalled passages (earlier recalls read back) left out — add --echoes to see them\n";
    const fitted = fitText(note, 40);
    expect(fitted).toBe(
      "note: 3 copies of recalled passages\n" +
        "      (earlier recalls read back) left\n" +
        "      out — add --echoes to see them\n",
    );
    for (const l of fitted.split("\n")) expect(Array.from(l).length).toBeLessThanOrEqual(40);
    expect(fitText(note, null)).toBe(note);
    expect(fitText("  indented words here", 12)).toBe("  indented\n  words here");
  });

  it("counts the rows a terminal gives text, wrapping included", () => {
    expect(terminalRows("abc\n", 80)).toBe(1);
    expect(terminalRows(`${"x".repeat(80)}\n`, 80)).toBe(1);
    expect(terminalRows(`${"x".repeat(81)}\n\n`, 80)).toBe(3);
  });
});
