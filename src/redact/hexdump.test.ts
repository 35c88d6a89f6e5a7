import { describe, expect, it } from "vitest";
import { formatHex, hexdumpC, odX1z, xxd } from "../../test/helpers/hex-dumps.js";
import { renderTemplate } from "../../test/helpers/secret-corpus.js";
import { hexDumpSplices } from "./hexdump.js";
import { applyRedactions, scanPatterns } from "./scanner.js";

/** Random text from a template (see secret-formats.ts). */
const t = (template: string, seed = 11) => renderTemplate(template, seed, 0).value;

/** The text with every finding of the catalogue replaced. */
const redacted = (text: string) => applyRedactions(text, scanPatterns(text)).text;

/** Pieces of `s`, 8 characters each, and their hex: what a reader of a dump could still put together. */
const pieces = (s: string) => {
  const out: string[] = [];
  for (let i = 0; i + 8 <= s.length; i += 4) out.push(s.slice(i, i + 8));
  return out;
};

/** Every byte of the dumps `text` holds, read back (hex columns, one or two bytes a group, in order). */
const hexOf = (text: string) =>
  text
    .split("\n")
    .map((l) => /^\s*[0-9A-Fa-f]{6,16}:?((?:\s{1,2}[0-9A-Fa-f]{2,4}(?![0-9A-Fa-f]))+)/.exec(l)?.[1] ?? "")
    .join("")
    .replace(/\s/g, "")
    .toLowerCase();

/** `hexdump`'s default and `od -x`: little-endian 16-bit words, no gutter, a 7-digit hex or octal offset. */
function words(b: Buffer, radix: 8 | 16): string {
  const lines: string[] = [];
  for (let at = 0; at < b.length; at += 16) {
    const row = [...b.subarray(at, at + 16)];
    if (row.length % 2 === 1) row.push(0);
    const ws: string[] = [];
    for (let i = 0; i < row.length; i += 2)
      ws.push(((row[i + 1] as number) * 256 + (row[i] as number)).toString(16).padStart(4, "0"));
    lines.push(`${at.toString(radix).padStart(7, "0")} ${ws.join(" ")}`);
  }
  return [...lines, b.length.toString(radix).padStart(7, "0")].join("\n");
}

describe("hex dumps read back to their bytes", () => {
  const token = t("hf_{a:34}");
  const env = Buffer.from(`# staging\nNODE_ENV=production\nLOG_LEVEL=info\nHF_TOKEN=${token}\nPORT=8080\n`);
  const layouts: Record<string, string> = {
    xxd: xxd(env),
    "xxd -g 1": xxd(env, 1),
    "hexdump -C": hexdumpC(env),
    "od -A x -t x1z": odX1z(env),
    "Format-Hex": formatHex(env, "C:\\app\\.env"),
    hexdump: words(env, 16),
    "od -x": words(env, 8),
  };

  it("redacts a token in any dump layout, from its hex columns and its gutter, as written and JSON-escaped", () => {
    for (const [name, dump] of Object.entries(layouts))
      for (const text of [`$ dump .env\n${dump}\n`, JSON.stringify({ output: `${dump}\n` })]) {
        const out = redacted(text);
        expect(out, name).toContain("[REDACTED:huggingface");
        const plain = JSON.parse(text.startsWith("{") ? out : JSON.stringify({ output: out }))
          .output as string;
        for (const p of pieces(token)) {
          expect(plain, `${name}: ${p}`).not.toContain(p);
          expect(hexOf(plain), `${name}: hex of ${p}`).not.toContain(Buffer.from(p).toString("hex"));
        }
        // Whole lines go, the lines around them stay (the file's first line, here).
        expect(plain, name).toContain(dump.split("\n").find((l) => /^[0-9A-F]{6,16}[: ]/i.test(l)));
      }
  });

  it("reads the view of a dump as the file it shows", () => {
    for (const [name, dump] of Object.entries(layouts)) {
      const splices: { from: number; to: number; insert: string }[] = [];
      hexDumpSplices(dump, splices);
      const view = splices.map((s) => s.insert).join("");
      // Words pad an odd last byte with a zero, which the view reads as a line break.
      expect(view.replace(/\n+$/, ""), name).toBe(env.toString().replace(/\n+$/, ""));
    }
  });

  it("leaves text that only looks like a dump: number tables, listings, hashes, a dump with nothing secret", () => {
    const clean = [
      "2024 1201 1302 1403 1504\n2025 1201 1302 1403 1504\n2026 1201 1302 1403 1504",
      "abcd1234 fix the parser\nbcde2345 add the reader\ncdef3456 bump the version",
      "0000 00 01 02 03 04 05 06 07\n0001 08 09 0a 0b 0c 0d 0e 0f",
      xxd(Buffer.from('#!/bin/sh\nexec node ./dist/cli/main.js "$@"\n')),
      hexdumpC(Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 73 + 5) % 256))),
    ];
    for (const text of clean) expect(scanPatterns(text), text).toEqual([]);
    const splices: { from: number; to: number; insert: string }[] = [];
    hexDumpSplices(clean[0] ?? "", splices);
    hexDumpSplices(clean[1] ?? "", splices);
    expect(splices).toEqual([]);
  });
});
