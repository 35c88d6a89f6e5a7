import { describe, expect, it } from "vitest";
import { keysOf } from "./prompt.js";

describe("keysOf", () => {
  it("drops arrow and function keys (escape sequences), keeps what was typed, and reads the edit keys", () => {
    const r = keysOf("\x1b[A\x1b[By\x1bOP\x1b[1;5Ces\x7f\r");
    expect(r.keys).toEqual([
      { kind: "char", text: "y" },
      { kind: "char", text: "e" },
      { kind: "char", text: "s" },
      { kind: "erase" },
      { kind: "enter" },
    ]);
    expect(keysOf("\x03").keys).toEqual([{ kind: "interrupt" }]);
    expect(keysOf("\x04\x15\n").keys).toEqual([{ kind: "eof" }, { kind: "kill" }, { kind: "enter" }]);
  });

  it("an escape sequence split between two reads is dropped whole", () => {
    const first = keysOf("n\x1b[");
    expect(first).toEqual({ keys: [{ kind: "char", text: "n" }], pending: "\x1b[" });
    expect(keysOf("Do\n", first.pending).keys).toEqual([{ kind: "char", text: "o" }, { kind: "enter" }]);
  });
});
