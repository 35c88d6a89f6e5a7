/**
 * Every vector the int8 embedder makes carries a stamp in itself: the lowest mantissa bit of each of its
 * 384 components is set to a fixed 384-bit pattern. That moves each component by at most one unit in the
 * last place (≈ 6e-8 of its value, a thousand times below int8's own error), so cosines are unchanged for
 * any reader, the reference included; and since the stamp is in the floats, it travels with the row into a
 * published memory. A vector computed in fp32 carries the pattern by chance with probability 2^-384.
 */

const PATTERN_SEED = 0x51f7_a3c9;

/** The stamp's bit for component i (a fixed xorshift stream, so every funes reads the same pattern). */
function pattern(dim: number): Uint8Array {
  const bits = new Uint8Array(dim);
  let s = PATTERN_SEED;
  for (let i = 0; i < dim; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    bits[i] = s & 1;
  }
  return bits;
}

const patterns = new Map<number, Uint8Array>();
const patternFor = (dim: number): Uint8Array => {
  let p = patterns.get(dim);
  if (p === undefined) {
    p = pattern(dim);
    patterns.set(dim, p);
  }
  return p;
};

/** Stamps `v` in place as made by the int8 embedder; returns it. */
export function stampInt8(v: Float32Array): Float32Array {
  const bits = new Uint32Array(v.buffer, v.byteOffset, v.length);
  const p = patternFor(v.length);
  for (let i = 0; i < bits.length; i++) bits[i] = ((bits[i] as number) & ~1) | (p[i] as number);
  return v;
}

/** Whether `v` carries the int8 embedder's stamp. */
export function isInt8Stamped(v: ArrayLike<number>): boolean {
  const f = v instanceof Float32Array ? v : Float32Array.from(v);
  const bits = new Uint32Array(f.buffer, f.byteOffset, f.length);
  const p = patternFor(f.length);
  for (let i = 0; i < bits.length; i++) if (((bits[i] as number) & 1) !== p[i]) return false;
  return f.length > 0;
}
