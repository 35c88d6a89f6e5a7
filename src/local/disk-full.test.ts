import { describe, expect, it } from "vitest";
import { diskFullOf } from "./disk-full.js";

describe("a full disk", () => {
  it("is read from Node's codes and from Lance's words, on the error or its causes", () => {
    const node = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      path: "/home/u/.funes/state.json.7.tmp",
    });
    expect(diskFullOf(node)).toEqual({ path: "/home/u/.funes/state.json.7.tmp" });
    expect(diskFullOf(Object.assign(new Error("quota"), { code: "EDQUOT" }))).toEqual({ path: null });
    const lance = new Error(
      "lance error: LanceError(IO): Generic LocalFileSystem error: Unable to open file /home/u/.funes/memory/chunks.lance/data/x.lance: No space left on device (os error 28), /root/.cargo/registry/src/a/lance-io/src/local.rs:1:2",
    );
    expect(diskFullOf(lance)).toEqual({ path: "/home/u/.funes/memory/chunks.lance/data/x.lance" });
    expect(diskFullOf(new Error("Disk quota exceeded (os error 122)"))).toEqual({ path: null });
    const sourceFirst = new Error(
      "Io error: No space left on device (os error 28), /usr/local/cargo/registry/src/index.crates.io-1/lance-file-8.0.0/src/writer.rs:9:1",
    );
    expect(diskFullOf(sourceFirst)).toEqual({ path: null });
    expect(diskFullOf(new Error("outer", { cause: node }))).toEqual({ path: node.path });
    expect(diskFullOf(new Error("permission denied (os error 13)"))).toBeNull();
    expect(diskFullOf(Object.assign(new Error("x"), { code: "EACCES" }))).toBeNull();
    expect(diskFullOf("ENOSPC")).toBeNull();
  });
});
