import { describe, expect, it } from "vitest";
import { describeFailure, withoutSourcePaths } from "./errors.js";

describe("native libraries' source paths never reach the user", () => {
  it("drops Lance's cargo and rustc locations from any failure line", () => {
    const lance = new Error(
      "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to open file /x/y.lance: Permission denied (os error 13), /home/runner/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/lance-io-8.0.0/src/local.rs:112:31",
    );
    const line = describeFailure(lance);
    expect(line.message).not.toMatch(/\.cargo|\.rs:\d/);
    expect(line.message).toContain("(os error 13)");
    // The same error on a full disk has its own meaning, naming the folder written to.
    const full = describeFailure(
      new Error(
        lance.message.replace("Permission denied (os error 13)", "No space left on device (os error 28)"),
      ),
      undefined,
      "/home/u/.funes",
    );
    expect(full).toEqual({
      code: "disk_full",
      message: 'the disk holding "/x" is full — free space and run it again',
    });
    expect(
      describeFailure(Object.assign(new Error("quota"), { code: "EDQUOT" }), undefined, "/home/u/.funes")
        .message,
    ).toBe('the disk holding "/home/u/.funes" is full — free space and run it again');
    expect(withoutSourcePaths("failed at /rustc/abc123/library/core/src/result.rs:1:2; then")).toBe(
      "failed at; then",
    );
    expect(withoutSourcePaths("a plain message — run it again")).toBe("a plain message — run it again");
  });
});
