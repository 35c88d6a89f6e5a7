import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/helpers/fixtures.js";
import { compactLossless, parseLossless, ryuFormat, serdeNumber } from "./json-compact.js";
import {
  parseJsonl,
  readTextLossy,
  SKIP_LFS_POINTER,
  SKIP_MALFORMED,
  SKIP_NOT_OBJECT,
  SKIP_SURROGATE,
} from "./jsonl.js";
import { fallbackWorkdir, isBlank, mungeCwd, rustTrim } from "./text.js";

describe("parseJsonl", () => {
  it("counts a Git LFS pointer once, by name, rather than as three malformed lines", () => {
    const skips = {};
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${"ab".repeat(32)}\nsize 90210\n`;
    expect([...parseJsonl(pointer, skips)]).toEqual([]);
    expect(skips).toEqual({ [SKIP_LFS_POINTER]: 1 });
  });

  it("parses CRLF lines, skips blanks, counts what it rejects", () => {
    const skips = {};
    const text = '{"a":1}\r\n\n   \n{"b":2\n[1,2]\n"\\ud800"\n{"c":"\\ud83d\\ude00"}\n{"d":"\\\\ud800"}';
    const got = [...parseJsonl(text, skips)].map((r) => r.value);
    expect(got).toEqual([{ a: 1 }, { c: "😀" }, { d: "\\ud800" }]);
    expect(skips).toEqual({ [SKIP_MALFORMED]: 1, [SKIP_NOT_OBJECT]: 1, [SKIP_SURROGATE]: 1 });
    const s2 = {};
    expect([...parseJsonl('{"x":"\\ud800 lone"}\n{"y":"\\udc00"}', s2)]).toEqual([]);
    expect(s2).toEqual({ [SKIP_SURROGATE]: 2 });
  });

  it("decodes invalid UTF-8 as U+FFFD rather than failing", async () => {
    const t = tempDir();
    try {
      const p = join(t.dir, "bad.jsonl");
      writeFileSync(
        p,
        Buffer.concat([Buffer.from('{"t":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}\n')]),
      );
      const [rec] = [...parseJsonl(await readTextLossy(p), {})];
      expect(rec?.value.t).toBe("a\uFFFD\uFFFDb");
    } finally {
      t.cleanup();
    }
  });
});

describe("serde-compatible JSON", () => {
  it("formats floats like ryu", () => {
    expect(
      [1, 1.5, 0.001, 1e15, 1e16, 1e17, 1e20, 1.5e-7, 0.00001, 123456.789, -2, 0].map(ryuFormat),
    ).toEqual([
      "1.0",
      "1.5",
      "0.001",
      "1000000000000000.0",
      "1e16",
      "1e17",
      "1e20",
      "1.5e-7",
      "0.00001",
      "123456.789",
      "-2.0",
      "0.0",
    ]);
  });

  it("keeps integers exact and re-serializes in source order", () => {
    expect(serdeNumber("12345678901234567890")).toBe("12345678901234567890");
    expect(serdeNumber("-9223372036854775808")).toBe("-9223372036854775808");
    expect(serdeNumber("100000000000000000000")).toBe("1e20");
    expect(serdeNumber("2.50")).toBe("2.5");
    const v = parseLossless(' { "2": [1.0, true, null], "1": "é\\u00e9\\n", "2": {"z": -0.5e1} } ');
    expect(compactLossless(v)).toBe('{"2":{"z":-5.0},"1":"éé\\n"}');
  });
});

describe("text helpers", () => {
  it("trims and tests blankness with Rust's White_Space", () => {
    expect(rustTrim("\u0085 x \u00a0")).toBe("x");
    expect(rustTrim("\ufeffx")).toBe("\ufeffx");
    expect(isBlank(" \u2028\t")).toBe(true);
    expect(isBlank("\ufeff")).toBe(false);
  });

  it("trims exactly the characters Unicode calls White_Space, every one of the BMP checked", () => {
    const ws = /^\p{White_Space}$/u;
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      expect(rustTrim(`${ch}${ch}a${ch}b${ch}`)).toBe(ws.test(ch) ? `a${ch}b` : `${ch}${ch}a${ch}b${ch}`);
    }
  });

  it("munges cwds as Claude Code names its project folders", () => {
    expect(mungeCwd("/home/ubuntu/funes")).toBe("-home-ubuntu-funes");
    expect(mungeCwd("/home/ubuntu/llama.cpp")).toBe("-home-ubuntu-llama-cpp");
    expect(mungeCwd("C:\\Users\\d\\dev\\funes")).toBe("C--Users-d-dev-funes");
    expect(mungeCwd("D:\\physics\\earth")).toBe("D--physics-earth");
    expect(mungeCwd("/")).toBeNull();
    expect(mungeCwd("/tmp/é")).toBe("-tmp--");
  });

  it("falls back to the folder after `projects`, else the parent folder", () => {
    expect(fallbackWorkdir("/h/.claude/projects/-home-u-x/abc.jsonl")).toBe("-home-u-x");
    expect(fallbackWorkdir("/h/.codex/sessions/2026/06/23/r.jsonl")).toBe("23");
    expect(fallbackWorkdir("r.jsonl")).toBe("");
  });
});
