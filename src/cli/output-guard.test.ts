import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { guardedText, guardStream } from "./output-guard.js";

const ESC = "\u001b";

describe("output guard", () => {
  it("keeps funes's colours and progress erase, escapes every other sequence", () => {
    const ours = `${ESC}[1mtitle${ESC}[22m ${ESC}[2mdim${ESC}[22m \r${ESC}[2K[##--] 1/2`;
    expect(guardedText(ours)).toBe(ours);
    expect(guardedText(`${ESC}]52;c;eA==\u0007 ${ESC}[8m ${ESC}[2J \r \u009b`)).toBe(
      "\\u001b]52;c;eA==\\u0007 \\u001b[8m \\u001b[2J \\u000d \\u009b",
    );
  });

  it("guards strings and bytes written to a stream, a character split across chunks included", async () => {
    const out = new PassThrough();
    const got: Buffer[] = [];
    out.on("data", (d: Buffer) => got.push(d));
    guardStream(out as unknown as NodeJS.WriteStream);
    const bytes = Buffer.from(`é${ESC}]0;t\u0007✓`);
    out.write(bytes.subarray(0, 1));
    out.write(bytes.subarray(1, 8));
    out.write(bytes.subarray(8));
    await new Promise<void>((resolve) => out.write(` ${ESC}[1mok${ESC}[22m\n`, () => resolve()));
    expect(Buffer.concat(got).toString("utf8")).toBe(`é\\u001b]0;t\\u0007✓ ${ESC}[1mok${ESC}[22m\n`);
  });
});
