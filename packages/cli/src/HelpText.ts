/**
 * What `turnlog --help` and `turnlog help <command>` say, written for people:
 * each command's synopsis, what it does in a line or two, its options with
 * their defaults, and a few examples. `Help` lays it out; a test holds the
 * options named here to the ones the parser declares (`Cli.ts`).
 */

export interface Option {
  /** As typed: `--model <provider>/<model>`, `-c, --continue`. */
  readonly flags: string
  readonly text: string
}

export interface CommandHelp {
  /** One line: what the command is for (the top-level list shows it). */
  readonly summary: string
  /** After `turnlog `: the command's arguments and options in short. */
  readonly usage: string
  /** A few lines more than the summary, when the command needs them. */
  readonly about?: ReadonlyArray<string>
  readonly options: ReadonlyArray<Option>
  readonly examples: ReadonlyArray<string>
}

const SESSION_ID = "a session id, or any unique prefix or suffix of one"

export const COMMANDS: Readonly<Record<string, CommandHelp>> = {
  chat: {
    summary: "the interactive session: a conversation in the terminal",
    usage: "chat [--model <provider>/<model>] [--session <id> | -c | -r] [--mode <mode>] [--reasoning <level>]",
    about: ["Also what `turnlog` alone opens when stdin and stdout are a terminal. /help inside lists its commands."],
    options: [
      { flags: "--model <provider>/<model>", text: "the model (default: the session's, else the config's model, else the provider whose key is set)" },
      { flags: "--session <id>", text: `continue this session (${SESSION_ID})` },
      { flags: "-c, --continue", text: "continue the latest session in this directory" },
      { flags: "-r, --resume", text: "pick one of this directory's sessions to continue" },
      { flags: "--mode <mode>", text: "ask (default), read-only, auto-edit or full-access; kept in the session's log (inside: /mode)" },
      { flags: "--reasoning <level>", text: "off, low, medium or high: how hard a model that reasons thinks; kept in the log (inside: /reasoning)" },
    ],
    examples: ["turnlog", "turnlog chat --continue", "turnlog chat --model openai/gpt-5-mini"],
  },
  run: {
    summary: "one turn: the answer on stdout, tool activity on stderr",
    usage: "run [options] [--] [<prompt>...]",
    about: [
      "The prompt is the words after the options; `-`, or none with input piped, reads it from stdin.",
      "Piped input given with a prompt goes after it, fenced. A prompt starting with a dash goes after --.",
    ],
    options: [
      { flags: "--model <provider>/<model>", text: "the model (default: the session's, else the config's model, else the provider whose key is set)" },
      { flags: "--session <id>", text: `continue this session (${SESSION_ID})` },
      { flags: "--continue", text: "continue the latest session in this directory" },
      { flags: "--max-tokens <n>", text: "output token limit per response (default: the config's maxTokens, else the model's)" },
      { flags: "--allow-tools", text: "let tools write files and run commands without asking (piped, nothing can ask)" },
      { flags: "--mode <mode>", text: "ask (default), read-only, auto-edit or full-access; kept in the session's log" },
      { flags: "--json", text: "one JSON object per line on stdout for each event of the turn" },
      { flags: "--reasoning <level>", text: "off, low, medium or high: how hard a model that reasons thinks; kept in the session's log" },
    ],
    examples: [
      'turnlog run "What does this project do?"',
      'turnlog run --continue --allow-tools "Fix the failing test"',
      'git diff | turnlog run "Review this change"',
      'turnlog run --json "List the files" | jq -r .type',
    ],
  },
  acp: {
    summary: "the Agent Client Protocol on stdio, for editors (Zed and others)",
    usage: "acp",
    about: ["The editor starts it; stdout belongs to the protocol, notes go to stderr."],
    options: [],
    examples: ['turnlog acp   (Zed: "agent_servers": { "turnlog": { "type": "custom", "command": "turnlog", "args": ["acp"] } })'],
  },
  sessions: {
    summary: "list the stored sessions, newest first",
    usage: "sessions [--json]",
    about: ["Each with its directory, title, turns and status (idle, running, interrupted)."],
    options: [{ flags: "--json", text: "print them as JSON" }],
    examples: ["turnlog sessions", "turnlog --store sqlite sessions --json"],
  },
  show: {
    summary: "print a session as a readable transcript",
    usage: "show [<id>] [--json] [--follow [--forever]]",
    about: [`<id> is ${SESSION_ID}; without one, the latest session in this directory.`],
    options: [
      { flags: "--json", text: "print the session as JSON" },
      { flags: "--follow", text: "then print what is written to it until the turn in flight (or the next one) ends" },
      { flags: "--forever", text: "with --follow: keep following until Ctrl-C" },
    ],
    examples: ["turnlog show", "turnlog show 303adb34", "turnlog show --follow --forever"],
  },
  models: {
    summary: "list the models --model takes, with context window and output limit",
    usage: "models",
    about: ["The config's providers' models, and those of built-in providers whose key is set."],
    options: [],
    examples: ["turnlog models", "ANTHROPIC_API_KEY=… turnlog models"],
  },
  doctor: {
    summary: "check what this build makes of a session's log, changing nothing",
    usage: "doctor [<id> | --all] [--json]",
    about: [`<id> is ${SESSION_ID}; without one, the latest session in this directory.`],
    options: [
      { flags: "--all", text: "examine every stored session, and name the ones that cannot be read" },
      { flags: "--json", text: "print the report as JSON" },
    ],
    examples: ["turnlog doctor", "turnlog doctor 303adb34 --json", "turnlog doctor --all"],
  },
  demo: {
    summary: "the keyless showcase: a scripted session, no key, no network",
    usage: "demo",
    about: ["No key and no network; the sessions it writes go in a new directory under the home (printed)."],
    options: [],
    examples: ["turnlog demo", "turnlog --store sqlite demo"],
  },
  compact: {
    summary: "summarise a session's older history now, to shrink its requests",
    usage: "compact (--session <id> | --continue) [--focus <text>]",
    about: ["Prints the estimated size of the next request before and after."],
    options: [
      { flags: "--session <id>", text: `compact this session (${SESSION_ID})` },
      { flags: "--continue", text: "compact the latest session in this directory" },
      { flags: "--focus <text>", text: "what the summary should keep in view" },
    ],
    examples: ["turnlog compact --continue", "turnlog compact --session 303adb34"],
  },
  export: {
    summary: "write a session as a JSONL log (for import) or as an HTML page",
    usage: "export [<id>] [--html] [-o <file>]",
    about: [`<id> is ${SESSION_ID}; none: the latest session in this directory.`],
    options: [
      { flags: "--html", text: "one self-contained HTML page to read, instead of the log" },
      { flags: "-o, --output <file>", text: "write to this file (default: stdout)" },
    ],
    examples: ["turnlog export 303adb34 > session.jsonl", "turnlog export --html -o session.html"],
  },
  import: {
    summary: "add a session from a JSONL log file to the store, verified first",
    usage: "import <file>",
    about: ["<file> is a log as export writes it, or - for stdin; the session keeps its id."],
    options: [],
    examples: ["turnlog --store sqlite import session.jsonl", "turnlog export 303adb34 | turnlog --store sqlite import -"],
  },
  delete: {
    summary: "delete a session and everything stored of it",
    usage: "delete <id>",
    about: [`<id> is ${SESSION_ID}; refused while a live process holds the session.`],
    options: [],
    examples: ["turnlog delete 303adb34"],
  },
  fork: {
    summary: "copy a session up to a turn into a new session",
    usage: "fork <id> [--at <turn>]",
    about: [`<id> is ${SESSION_ID}. The new session's id is printed on stdout; the original is only read.`],
    options: [{ flags: "--at <turn>", text: "the last turn copied (default: the last ended turn)" }],
    examples: ["turnlog fork 303adb34", 'turnlog run --session "$(turnlog fork 303adb34 --at 2)" "Try another way"'],
  },
  prune: {
    summary: "delete the sessions last written longer ago than an age",
    usage: "prune --older-than <age> [--dry-run]",
    about: ["Sessions in use are kept."],
    options: [
      { flags: "--older-than <age>", text: "the age: 30d, 12h, 90m, 2w (required)" },
      { flags: "--dry-run", text: "name the sessions that would be deleted; delete nothing" },
    ],
    examples: ["turnlog prune --older-than 30d --dry-run", "turnlog prune --older-than 2w"],
  },
  view: {
    summary: "browse the sessions in a browser, served on 127.0.0.1",
    usage: "view [<id>]",
    about: ["The address printed holds a token; open it in a browser. Ctrl-C stops serving."],
    options: [],
    examples: ["turnlog view", "turnlog view 303adb34"],
  },
}

/** The order the top-level help lists them in: the everyday ones first. */
export const ORDER: ReadonlyArray<string> = [
  "chat",
  "run",
  "acp",
  "sessions",
  "show",
  "models",
  "doctor",
  "compact",
  "export",
  "import",
  "delete",
  "fork",
  "prune",
  "view",
  "demo",
]

/** The options every command takes (hoisted before the command by `GlobalArgs`). */
export const GLOBAL_OPTIONS: ReadonlyArray<Option> = [
  { flags: "--home <dir>", text: "where sessions are kept (default: $TURNLOG_HOME, else ~/.turnlog)" },
  { flags: "--config <file>", text: "the config file (default: $TURNLOG_CONFIG, else <home>/config.json if it exists)" },
  { flags: "--store <store>", text: "jsonl, sqlite or postgres (default: the config's store, else jsonl)" },
  { flags: "--no-color", text: "no colour (as NO_COLOR=1)" },
  { flags: "-h, --help", text: "this help; turnlog help <command> for a command's" },
  { flags: "-v, -V, --version", text: "print the version" },
  { flags: "--completions <shell>", text: "print a completion script for bash, zsh, fish or sh" },
]

export const TOP_EXAMPLES: ReadonlyArray<string> = [
  "turnlog demo",
  'turnlog run "What is in this directory?"',
  'turnlog run --continue "Now read the README"',
  "turnlog show",
]

export const ENVIRONMENT: ReadonlyArray<Option> = [
  { flags: "TURNLOG_HOME", text: "where sessions and the config live (default: ~/.turnlog)" },
  { flags: "TURNLOG_CONFIG", text: "the config file (default: $TURNLOG_HOME/config.json)" },
  { flags: "TURNLOG_DATABASE_URL", text: "the PostgreSQL database of --store postgres" },
  { flags: "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, DEEPSEEK_API_KEY, MISTRAL_API_KEY", text: "" },
  {
    flags: "",
    text: "a provider's key; one set picks its model when none is named. Every pi-ai provider's key variable is read, and a custom provider's apiKeyEnv",
  },
  { flags: "TURNLOG_SANDBOX", text: "auto (default), off or require: run_command in a bubblewrap sandbox" },
  { flags: "TURNLOG_SCRIPTED_MODEL", text: "a scripted model (a JSONL file) played instead of a provider" },
  { flags: "NO_COLOR", text: "set and not empty: no colour anywhere" },
  { flags: "TURNLOG_DEBUG", text: "set: an internal error is printed with its full cause" },
  { flags: "TURNLOG_COMPILE_CACHE", text: "where the compiled command is kept between runs (default: in the temp directory); 0: nowhere" },
]

export const FILES: ReadonlyArray<Option> = [
  { flags: "<home>/config.json", text: "the config: model, providers, permissions, mcpServers, system prompt" },
  { flags: "<home>/sessions/", text: "the sessions' logs (jsonl store); <home>/sessions.db with --store sqlite" },
  { flags: "AGENTS.md, CLAUDE.md", text: "project instructions, from the repository root down to this directory" },
  { flags: "<home>/AGENTS.md", text: "your instructions for every project" },
]

export const EXIT_CODES: ReadonlyArray<Option> = [
  { flags: "0", text: "done (a turn that stopped at the output limit included)" },
  { flags: "1", text: "failed: a turn ended in error, a session cannot be read" },
  { flags: "2", text: "fix the command line or the config first" },
  { flags: "130, 143, 129", text: "stopped by Ctrl-C, SIGTERM, the terminal closing (the turn is logged as cancelled)" },
  { flags: "141", text: "stdout's reader went away (`turnlog run … | head`)" },
]
