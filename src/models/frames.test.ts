import { describe, expect, it } from "vitest";
import { FrameReader, FrameTooLongError } from "./frames.js";

describe("FrameReader", () => {
  it("joins lines split across chunks, a character split between two of them included", () => {
    const r = new FrameReader(100);
    const bytes = Buffer.from('{"q":"naïve"}\n{"id":2}\nrest', "utf8");
    const got: string[] = [];
    // One byte at a time: the ï's two bytes arrive apart.
    for (let i = 0; i < bytes.length; i++) got.push(...r.push(bytes.subarray(i, i + 1)));
    expect(got).toEqual(['{"q":"naïve"}', '{"id":2}']);
    expect(r.push(Buffer.from("\n"))).toEqual(["rest"]);
  });

  it("refuses a line past its bound as soon as it passes it, held or in one chunk, and reads on after", () => {
    const r = new FrameReader(10);
    r.push(Buffer.from("12345678"));
    expect(() => r.push(Buffer.from("901"))).toThrow(FrameTooLongError);
    expect(() => new FrameReader(10).push(Buffer.from("x".repeat(11)))).toThrow(FrameTooLongError);
    // Exactly at the bound is a line.
    expect(r.push(Buffer.from("1234567890\n"))).toEqual(["1234567890"]);
  });
});
