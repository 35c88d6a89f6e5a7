/**
 * `funes completion bash|zsh|fish`: a completion script for the shell, made from the commands and flags
 * the CLI defines (so it cannot drift from them): commands, each command's flags, agent names where an
 * agent is expected, the actions of `models` and `cache`, and file names elsewhere.
 */

/** What completion knows of one command. */
export interface CompletionCommand {
  name: string;
  description: string;
  /** Flags as typed (`--harness`, `-k`). */
  flags: string[];
  /** Words for the first argument (agents, actions), if it is one of a few. */
  words: string[];
}

/** The shells completion scripts exist for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

const sq = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

function bash(cmds: CompletionCommand[]): string {
  const cases = cmds
    .map((c) => `    ${c.name}) flags=${sq(c.flags.join(" "))}; words=${sq(c.words.join(" "))} ;;`)
    .join("\n");
  return `# funes completion for bash — add to ~/.bashrc:  eval "$(funes completion bash)"
_funes() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" flags="" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W ${sq(cmds.map((c) => c.name).join(" "))} -- "$cur") )
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags --help" -- "$cur") )
  elif [ "$COMP_CWORD" -eq 2 ] && [ -n "$words" ]; then
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o default -F _funes funes
`;
}

function zsh(cmds: CompletionCommand[]): string {
  const described = cmds
    .map((c) => `    ${sq(`${c.name}:${c.description.replaceAll(":", "\\:")}`)}`)
    .join("\n");
  const cases = cmds
    .map(
      (c) => `    ${c.name}) flags=(${c.flags.map(sq).join(" ")}); choices=(${c.words.map(sq).join(" ")}) ;;`,
    )
    .join("\n");
  return `#compdef funes
# funes completion for zsh — add to ~/.zshrc:  eval "$(funes completion zsh)"
_funes() {
  local -a commands flags choices
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case "\${words[2]}" in
${cases}
  esac
  if [[ "$PREFIX" == -* ]]; then
    compadd -- $flags --help
  elif (( CURRENT == 3 )) && (( \${#choices} > 0 )); then
    compadd -- $choices
  else
    _files
  fi
}
compdef _funes funes
`;
}

function fish(cmds: CompletionCommand[]): string {
  const lines = [
    "# funes completion for fish — save as ~/.config/fish/completions/funes.fish, or:  funes completion fish | source",
    "complete -c funes -f",
  ];
  for (const c of cmds) {
    lines.push(`complete -c funes -n __fish_use_subcommand -a ${c.name} -d ${sq(c.description)}`);
    const when = `-n ${sq(`__fish_seen_subcommand_from ${c.name}`)}`;
    for (const f of c.flags)
      lines.push(`complete -c funes ${when} ${f.startsWith("--") ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`}`);
    if (c.words.length > 0) lines.push(`complete -c funes ${when} -a ${sq(c.words.join(" "))}`);
    else lines.push(`complete -c funes ${when} -F`);
  }
  return `${lines.join("\n")}\n`;
}

/** The completion script for `shell`. */
export function completionScript(shell: Shell, cmds: CompletionCommand[]): string {
  switch (shell) {
    case "bash":
      return bash(cmds);
    case "zsh":
      return zsh(cmds);
    case "fish":
      return fish(cmds);
  }
}
