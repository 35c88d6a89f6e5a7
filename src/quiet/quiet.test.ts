import { describe, expect, it } from "vitest";
import { withoutDebugOutput } from "./index.js";

describe("withoutDebugOutput", () => {
  it("keeps console.debug muted until the last of overlapping calls ends", async () => {
    const original = console.debug;
    const seen: string[] = [];
    let release: () => void = () => {};
    const slow = withoutDebugOutput(
      () =>
        new Promise<void>((resolve) => {
          release = () => {
            console.debug("from the slow call");
            resolve();
          };
        }),
    );
    await withoutDebugOutput(async () => console.debug("from the quick call"));
    // The quick call ended first: the slow one must still be muted.
    const spy = console.debug;
    console.debug = (m: string) => seen.push(m);
    expect(spy).not.toBe(original);
    console.debug = spy;
    release();
    await slow;
    expect(console.debug).toBe(original);
    expect(seen).toEqual([]);
  });
});
