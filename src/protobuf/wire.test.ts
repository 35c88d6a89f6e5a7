import { describe, expect, it } from "vitest";
import { PbBudget, PbLimitError, PbWriter, pbDecode, pbSigned, pbText, pbVarints } from "./wire.js";

describe("protobuf fields", () => {
  it("decodes what it encodes and writes decoded fields back byte for byte, negative int64s included", () => {
    const inner = new PbWriter().bytes(1, "axis").varint(3, 7).finish();
    // A negative int64 (axis = -1) as protobuf writes it: ten bytes of two's complement.
    const minusOne = Uint8Array.from([0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    const msg = Buffer.concat([
      new PbWriter().bytes(5, inner).float(2, 1.5).varint(20, 300).finish(),
      minusOne,
    ]);
    const fields = pbDecode(msg);
    expect(fields.map((f) => [f.no, f.wire])).toEqual([
      [5, 2],
      [2, 5],
      [20, 0],
      [3, 0],
    ]);
    expect(pbText(pbDecode(fields[0]?.bytes as Uint8Array)[0] as never)).toBe("axis");
    expect(Buffer.from(fields[1]?.bytes as Uint8Array).readFloatLE()).toBe(1.5);
    expect(fields[2]?.num).toBe(300);
    expect(pbSigned(fields[2] as never)).toBe(300);
    expect(pbSigned(fields[3] as never)).toBe(-1);
    const again = new PbWriter();
    for (const f of fields) again.field(f);
    expect(Buffer.from(again.finish()).equals(msg)).toBe(true);
  });

  it("reads packed and unpacked repeated varints", () => {
    const packed = new PbWriter().bytes(1, Uint8Array.from([0x80, 0x03, 0x05])).finish();
    expect(pbVarints(pbDecode(packed)[0] as never)).toEqual([384, 5]);
    expect(pbVarints(pbDecode(new PbWriter().varint(1, 1536).finish())[0] as never)).toEqual([1536]);
  });

  it("refuses a truncated message instead of reading past its end", () => {
    const msg = new PbWriter().bytes(1, "model.onnx").finish();
    expect(() => pbDecode(msg.subarray(0, msg.length - 2))).toThrow("truncated field");
    expect(() => pbDecode(Uint8Array.of(0x08, 0x80))).toThrow("truncated varint");
    expect(() => pbDecode(Uint8Array.of(0x0b))).toThrow("unsupported wire type 3");
  });

  it("reads under limits: fields per message, unknown numbers skipped and counted, a file-wide budget, depth", () => {
    const w = new PbWriter().bytes(1, "name");
    for (let i = 0; i < 10; i++) w.varint(1000, 1);
    const msg = w.finish();
    // Unknown numbers are not returned (nothing held for them), up to the cap.
    expect(pbDecode(msg, { maxFields: 11, known: new Set([1]), maxUnknown: 10 }).map((f) => f.no)).toEqual([
      1,
    ]);
    expect(() => pbDecode(msg, { maxFields: 11, known: new Set([1]), maxUnknown: 9 })).toThrow(
      new PbLimitError("a message holds more than 9 fields of unknown numbers"),
    );
    expect(() => pbDecode(msg, { maxFields: 10 })).toThrow("a message holds more than 10 fields");
    // The budget is shared by every message of one file.
    const budget = new PbBudget(15, 1);
    pbDecode(msg, { maxFields: 100, budget });
    expect(() => pbDecode(msg, { maxFields: 100, budget })).toThrow("holds more than 15 fields in all");
    expect(() => pbDecode(msg, { maxFields: 100, budget: new PbBudget(100, 1), depth: 2 })).toThrow(
      "nests messages more than 1 deep",
    );
  });
});
