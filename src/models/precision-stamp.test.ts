import { describe, expect, it } from "vitest";
import { isInt8Stamped, stampInt8 } from "./precision-stamp.js";

function unit(seed: number): Float32Array {
  let s = seed;
  const v = Float32Array.from({ length: 384 }, () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648 - 0.5;
  });
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

describe("the int8 stamp", () => {
  it("is found on stamped vectors, on no vector computed otherwise, and leaves cosines as they were", () => {
    const plain = Array.from({ length: 500 }, (_, i) => unit(i + 1));
    expect(plain.filter(isInt8Stamped)).toHaveLength(0);
    for (const v of plain.slice(0, 50)) {
      const s = stampInt8(v.slice());
      expect(isInt8Stamped(s)).toBe(true);
      // Through plain numbers and back (as a memory's rows are read), the stamp stays.
      expect(isInt8Stamped(Array.from(s))).toBe(true);
      const cos = s.reduce((a, x, j) => a + x * (v[j] as number), 0);
      expect(Math.abs(cos - 1)).toBeLessThan(1e-6);
      for (let j = 0; j < v.length; j++)
        expect(Math.abs((s[j] as number) - (v[j] as number))).toBeLessThanOrEqual(
          Math.abs(v[j] as number) * 2 ** -22,
        );
    }
  });

  it("is idempotent, and a vector rescaled afterwards no longer carries it", () => {
    const s = stampInt8(unit(7));
    const twice = stampInt8(s.slice());
    expect(Array.from(twice)).toEqual(Array.from(s));
    // Arithmetic on a component leaves its lowest bit to chance: a rescaled vector keeps the whole
    // pattern with odds 2^-384.
    expect(isInt8Stamped(s.map((x) => x * 0.999))).toBe(false);
    expect(isInt8Stamped(new Float32Array())).toBe(false);
  });
});
