import { describe, expect, it } from "vitest";
import { chunkId } from "./ids.js";

describe("chunkId", () => {
  it("matches the reference's published examples", () => {
    expect(chunkId("s", "u", 0, 0)).toBe("db034eb17320699f");
    expect(chunkId("sess", "uuid", 0, 0)).toBe("088ee3e13e4321bc");
    expect(chunkId("test-session-0001", "t2", 1, 0)).toBe("3f2046d2ca21152b");
  });

  it("hashes the UTF-8 bytes of multi-byte coordinates", () => {
    // sha1("naïve-會話:turn-é:2:1"), derived outside this code base.
    expect(chunkId("naïve-會話", "turn-é", 2, 1)).toBe("a4c120c3dc91a680");
  });

  it("is 16 lowercase hex digits and depends on every coordinate", () => {
    const base = chunkId("a", "b", 1, 2);
    expect(base).toMatch(/^[0-9a-f]{16}$/);
    for (const other of [
      chunkId("x", "b", 1, 2),
      chunkId("a", "x", 1, 2),
      chunkId("a", "b", 0, 2),
      chunkId("a", "b", 1, 0),
    ])
      expect(other).not.toBe(base);
  });
});
