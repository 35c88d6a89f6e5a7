import { describe, expect, it } from "vitest";
import { editJsonText, jsonTextIsEmpty, readJsonText, rewriteJson } from "./json-text.js";

/** A user's JSONC file: comments, a one-line object, a trailing comma, their own indentation. */
const MINE = `{
    // my servers
    "mcpServers": {
        "notes": { "command": "notes" }, // keep this one
    },
    /* the look */
    "ui": {"theme": "ANSI"}
}
`;

const withFunes = (root: Record<string, unknown>) => ({
  ...root,
  mcpServers: { ...(root.mcpServers as object), funes: { command: "funes", args: ["mcp"] } },
  hooks: { AfterAgent: [{ hooks: [{ type: "command", command: "x" }] }] },
});

describe("JSON and JSONC edited in place", () => {
  it("reads comments and trailing commas, and refuses what is not an object", () => {
    expect(readJsonText(MINE)).toEqual({
      mcpServers: { notes: { command: "notes" } },
      ui: { theme: "ANSI" },
    });
    expect(readJsonText(null)).toEqual({});
    expect(readJsonText("  \n")).toEqual({});
    expect(readJsonText("[1]")).toBeNull();
    expect(readJsonText('{"a": }')).toBeNull();
    expect(jsonTextIsEmpty('{\n  // nothing\n  "hooks": {}\n}\n')).toBe(true);
    expect(jsonTextIsEmpty('{"a": 1}')).toBe(false);
  });

  it("adds entries after their siblings with the file's indentation, every other byte kept", () => {
    const added = editJsonText(MINE, withFunes);
    expect(added).toBe(`{
    // my servers
    "mcpServers": {
        "notes": { "command": "notes" }, // keep this one
        "funes": {
            "command": "funes",
            "args": [
                "mcp"
            ]
        },
    },
    /* the look */
    "ui": {"theme": "ANSI"},
    "hooks": {
        "AfterAgent": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "x"
                    }
                ]
            }
        ]
    }
}
`);
    // Taking them out gives the user's bytes back; an edit that changes nothing gives the same text.
    expect(editJsonText(added, () => readJsonText(MINE) ?? {})).toBe(MINE);
    expect(editJsonText(added, withFunes)).toBe(added);
    expect(editJsonText(MINE, (root) => root)).toBe(MINE);
  });

  it("keeps a user's edit made meanwhile when funes's entries go", () => {
    const added = editJsonText(MINE, withFunes).replace('"theme": "ANSI"', '"theme": "Dracula"');
    const stripped = editJsonText(added, (root) => {
      const { hooks: _h, ...rest } = root;
      return { ...rest, mcpServers: { notes: { command: "notes" } } };
    });
    expect(stripped).toBe(MINE.replace('"theme": "ANSI"', '"theme": "Dracula"'));
  });

  it("lists: items kept in place, new ones at their positions, a removed one with its line and comma", () => {
    const text = '{\n  "visible": [\n    "a", // first\n    "b"\n  ]\n}\n';
    const more = rewriteJson(text, { visible: ["a", "b", "f1", "f2"] });
    expect(more).toBe('{\n  "visible": [\n    "a", // first\n    "b",\n    "f1",\n    "f2"\n  ]\n}\n');
    expect(rewriteJson(more, { visible: ["a", "b"] })).toBe(text);
    expect(rewriteJson(text, { visible: ["b"] })).toBe('{\n  "visible": [\n    "b"\n  ]\n}\n');
  });

  it("follows tabs, CRLF line ends, one-line files and a missing final newline", () => {
    expect(rewriteJson('{\n\t"a": 1\n}', { a: 1, b: [2] })).toBe('{\n\t"a": 1,\n\t"b": [\n\t\t2\n\t]\n}');
    expect(rewriteJson('{\r\n  "a": 1\r\n}\r\n', { a: 1, b: 2 })).toBe('{\r\n  "a": 1,\r\n  "b": 2\r\n}\r\n');
    expect(rewriteJson('{"a":1}', { a: 1, b: { c: 2 } })).toBe('{"a":1, "b": {"c":2}}');
    expect(rewriteJson('{"a":1, "b": {"c":2}}', { a: 1 })).toBe('{"a":1}');
    expect(rewriteJson(null, { a: 1 })).toBe('{\n  "a": 1\n}\n');
    expect(rewriteJson("{}\n", { a: 1 })).toBe('{\n  "a": 1\n}\n');
  });
});
