import { describe, expect, it } from "vitest";
import { elideDataUris } from "./elide.js";

describe("elideDataUris", () => {
  it("elides base64 payloads of data URIs", () => {
    expect(elideDataUris("see data:image/png;base64,iVBORw0KGgo== end")).toBe(
      "see data:image/png;base64,[elided] end",
    );
    expect(elideDataUris("data:;base64,QUJD")).toBe("data:;base64,[elided]");
    expect(elideDataUris('{"url":"data:image/jpeg;base64,/9j/4AAQ+/=="}')).toBe(
      '{"url":"data:image/jpeg;base64,[elided]"}',
    );
    expect(elideDataUris("a data:a/b;base64,AAAA b data:c/d;base64,BBBB")).toBe(
      "a data:a/b;base64,[elided] b data:c/d;base64,[elided]",
    );
  });

  it("leaves look-alikes untouched", () => {
    for (const s of [
      "metadata:image/png;base64,AAAA",
      "data: image/png;base64,AAAA",
      "a bare ;base64,AAAA",
      "data:image/png;base64,",
      'data:x,"y;base64,AAAA',
    ])
      expect(elideDataUris(s)).toBe(s);
  });
});
