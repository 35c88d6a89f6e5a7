import { describe, expect, it } from "vitest";
import { ActivityLine } from "./progress.js";

/** A stream that keeps what is written, `columns` wide. */
function sink(columns: number) {
  const out = {
    text: "",
    columns,
    write(s: string): boolean {
      out.text += s;
      return true;
    },
  };
  return out;
}

describe("ActivityLine", () => {
  it("on a terminal: one row with its seconds, cut to the width, removed whole; never the funes: prefix", () => {
    let now = 0;
    const out = sink(30);
    const a = new ActivityLine(out as unknown as NodeJS.WriteStream, true, () => now);
    a.start("setting funes up in claude…");
    now = 12_000;
    (a as unknown as { draw: () => void }).draw();
    a.clear();
    expect(out.text).toBe(
      "\r\x1b[2Ksetting funes up in claude…\r\x1b[2Ksetting funes up in claude… 1\r\x1b[2K",
    );
    expect(out.text).not.toContain("funes:");
  });

  it("off a terminal: the words once, on their own line", () => {
    const out = sink(0);
    const a = new ActivityLine(out as unknown as NodeJS.WriteStream, false);
    a.start("indexing your recent codex sessions…");
    a.clear();
    expect(out.text).toBe("indexing your recent codex sessions…\n");
  });
});
