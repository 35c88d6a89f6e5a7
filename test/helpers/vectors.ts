/** Deterministic random unit vectors (384-d) for index tests: `id-<i>` → vector, from a seed. */
export function unitVectors(n: number, seed: number): Map<string, Float32Array> {
  let x = seed;
  const rand = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648 - 0.5;
  };
  const vectors = new Map<string, Float32Array>();
  for (let i = 0; i < n; i++) {
    const v = Float32Array.from({ length: 384 }, rand);
    const norm = Math.hypot(...v);
    vectors.set(
      `id-${i}`,
      v.map((c) => c / norm),
    );
  }
  return vectors;
}
