import { describe, expect, it } from "vitest";
import { addYamlText, type HermesHook, stripYamlText } from "./config-yaml.js";

const INDEX = 'bash "/h/.hermes/hooks/funes-index.sh" "hermes"';
const PUSH = 'bash "/h/.hermes/hooks/funes-push.sh" "acme/kb" "hermes"';
const HOOKS: HermesHook[] = [
  { event: "post_llm_call", command: INDEX },
  { event: "on_session_start", command: PUSH },
];

/** A user's config: comments, an anchor and its alias, quoting and spacing of their own. */
const MINE = `# Hermes settings (mine)
defaults: &defaults
  model:   hermes-3     # aligned by hand
  temperature: 0.2
agent:
  <<: *defaults
hooks:
  post_llm_call:
  - command: 'echo mine'   # my own hook
    timeout: 5

# the end
`;

describe("Hermes's config.yaml edited as text", () => {
  it("adds funes's entries as lines after the user's, and taking them out gives the exact bytes back", () => {
    const added = addYamlText(MINE, HOOKS);
    expect(added).toBe(`# Hermes settings (mine)
defaults: &defaults
  model:   hermes-3     # aligned by hand
  temperature: 0.2
agent:
  <<: *defaults
hooks:
  post_llm_call:
  - command: 'echo mine'   # my own hook
    timeout: 5
  - command: ${INDEX}
    timeout: 30
  on_session_start:
  - command: ${PUSH}
    timeout: 30

# the end
`);
    expect(addYamlText(added, HOOKS)).toBe(added);
    expect(stripYamlText(added)).toBe(MINE);
    expect(stripYamlText(MINE)).toBe(MINE);
  });

  it("creates `hooks:` at the end of a file without one, and takes it out whole", () => {
    const plain = "# mine\nmodel: hermes-3\n";
    const added = addYamlText(plain, HOOKS.slice(0, 1));
    expect(added).toBe(
      `# mine\nmodel: hermes-3\nhooks:\n  post_llm_call:\n    - command: ${INDEX}\n      timeout: 30\n`,
    );
    expect(stripYamlText(added)).toBe(plain);
    expect(addYamlText("", HOOKS.slice(0, 1))).toBe(
      `hooks:\n  post_llm_call:\n    - command: ${INDEX}\n      timeout: 30\n`,
    );
  });

  it("keeps a user's edit made meanwhile, and changes the memory of a push hook in place", () => {
    const added = addYamlText(MINE, HOOKS).replace("temperature: 0.2", "temperature: 0.7");
    expect(stripYamlText(added)).toBe(MINE.replace("temperature: 0.2", "temperature: 0.7"));
    const rebound = addYamlText(added, [HOOKS[0] as HermesHook]);
    expect(rebound).not.toContain("on_session_start");
    expect(rebound).toContain(`  - command: ${INDEX}\n    timeout: 30\n`);
  });

  it("falls back to the library's rendering for flow-style hooks, comments kept", () => {
    const flow = "# mine\nhooks: {post_llm_call: [{command: echo mine}]}\n";
    const added = addYamlText(flow, HOOKS.slice(0, 1));
    expect(added).toContain("# mine");
    expect(added).toContain(INDEX);
    expect(stripYamlText(added)).not.toContain("funes-index");
  });
});
