import { getHeapStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { garbageBound } from "./index.js";

const used = () => getHeapStatistics().used_heap_size;

describe("garbageBound", () => {
  it("collects once the heap has grown past its slack, and not before", () => {
    const bound = garbageBound(16 * 1024 * 1024);
    expect(bound.check()).toBe(false);
    // ≈ 40 MB of strings, live while they are made (so they reach the old generation), then dead.
    let held: string[] | null = Array.from({ length: 300_000 }, (_, i) => `${"x".repeat(100)}${i}`);
    expect(held).toHaveLength(300_000);
    held = null;
    const before = used();
    expect(bound.check()).toBe(true);
    expect(used()).toBeLessThan(before - 16 * 1024 * 1024);
    // The new base is what was left: nothing more to collect.
    expect(bound.check()).toBe(false);
  });
});
