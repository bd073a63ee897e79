/**
 * The `turnlog` command line: global options on the root, one subcommand per
 * task. Each handler resolves the settings first, so a bad config is reported
 * before anything else happens.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { UsageError } from "./CliError.js"
import * as Output from "./Output.js"
import * as ParserNotes from "./ParserNotes.js"
import * as Secrets from "./Secrets.js"
import { Invocation, resolveSettings, STORE_KINDS, type StoreKind } from "./Settings.js"
import { VERSION } from "./Version.js"

const globals = {
  home: Options.text("home").pipe(
    Options.withPseudoName("dir"),
    Options.withDescription("where sessions are kept (default: $TURNLOG_HOME, else ~/.turnlog)"),
    Options.optional,
  ),
  config: Options.text("config").pipe(
    Options.withPseudoName("file"),
    Options.withDescription("the config file (default: $TURNLOG_CONFIG, else $TURNLOG_HOME/config.json if it exists)"),
    Options.optional,
  ),
  store: Options.choice("store", STORE_KINDS as ReadonlyArray<StoreKind> as [StoreKind, ...Array<StoreKind>]).pipe(
    Options.withDescription("the session store (default: the config's store, else jsonl); postgres reads $TURNLOG_DATABASE_URL or the config's database.url"),
    Options.optional,
  ),
}

// From here on no credential value reaches stdout or stderr (see `Secrets`), and
// none is left in this process's environment block for a command to read
// through /proc (see `EnvironmentBlock`).
// A command has started: from here on the console's errors are its own (see `ParserNotes`).
const settingsOf = (flags: Parameters<typeof resolveSettings>[0]) =>
  Effect.gen(function*() {
    yield* ParserNotes.started
    const invocation = yield* Invocation
    const terminal = yield* Output.Terminal
    const s = yield* resolveSettings(flags, invocation.env, invocation.cwd)
    const secrets = Secrets.of(s, invocation.env)
    Secrets.guardOutput(secrets.redactor, terminal)
    invocation.scrub(secrets.names)
    return s
  })

// With no command, a terminal on both ends opens the interactive session; anything else is told to choose.
const root = Command.make(
  "turnlog",
  globals,
  (flags) =>
    Effect.flatMap(Effect.zip(Invocation, Output.Terminal), ([invocation, terminal]) =>
      invocation.stdin.isTTY === true && Output.isTTY(terminal.stdout)
        ? Effect.flatMap(
          settingsOf(flags),
          (s) =>
            Effect.flatMap(
              load(() => import("./commands/Chat.js")),
              (m) => m.chat(s, { model: Option.none(), session: Option.none(), continue: false, resume: false }),
            ),
        )
        : new UsageError({
          message:
            "choose a command: chat, run, acp, sessions, show, doctor, models, compact, export, import, delete, fork, prune, view or demo (see turnlog --help)",
        })),
)

const settings = Effect.flatMap(root, (flags) => settingsOf(flags))

// Each command's module loads when it runs: a command pays only for what it uses
// (the ACP SDK, the agent loop, pi-ai), which is most of a short command's start-up.
const load = <M>(module: () => Promise<M>) => Effect.promise(module)

const json = Options.boolean("json").pipe(Options.withDescription("print JSON"))

const modeOption = Options.choice("mode", ["ask", "read-only", "auto-edit", "full-access"]).pipe(
  Options.withDescription("the session's mode, kept in its log: ask, read-only (plan), auto-edit (writes without asking), full-access"),
  Options.optional,
)
const reasoningOption = Options.choice("reasoning", ["off", "low", "medium", "high"]).pipe(
  Options.withDescription("how hard a model that reasons thinks, kept in the session's log: off, low, medium, high"),
  Options.optional,
)

const runCommand = Command.make("run", {
  model: Options.text("model").pipe(
    Options.withPseudoName("provider/model"),
    Options.withDescription("the model, e.g. anthropic/claude-sonnet-4-5"),
    Options.optional,
  ),
  session: Options.text("session").pipe(
    Options.withPseudoName("id"),
    Options.withDescription("continue this session"),
    Options.optional,
  ),
  continue: Options.boolean("continue").pipe(Options.withDescription("continue the latest session in this directory")),
  maxTokens: Options.integer("max-tokens").pipe(
    Options.withPseudoName("n"),
    Options.withDescription("output token limit per response"),
    Options.optional,
  ),
  allowTools: Options.boolean("allow-tools").pipe(Options.withDescription("let tools write files and run commands")),
  mode: modeOption,
  reasoning: reasoningOption,
  json: Options.boolean("json").pipe(Options.withDescription("one JSON object per line on stdout for each event of the turn")),
  // None: the prompt is piped in (`echo … | turnlog run`); `-` reads it from stdin.
  prompt: Args.text({ name: "prompt" }).pipe(
    Args.withDescription("the prompt; - (or none, with input piped) reads it from stdin; piped input goes after a prompt, fenced"),
    Args.repeated,
  ),
}, (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Run.js")), (m) => m.run(s, options)))).pipe(
  Command.withDescription("run one turn: the answer on stdout, the session id and tool activity on stderr"),
)

const chatCommand = Command.make("chat", {
  model: Options.text("model").pipe(
    Options.withPseudoName("provider/model"),
    Options.withDescription("the model, e.g. anthropic/claude-sonnet-4-5"),
    Options.optional,
  ),
  session: Options.text("session").pipe(
    Options.withPseudoName("id"),
    Options.withDescription("continue this session"),
    Options.optional,
  ),
  continue: Options.boolean("continue").pipe(
    Options.withAlias("c"),
    Options.withDescription("continue the latest session in this directory"),
  ),
  resume: Options.boolean("resume").pipe(
    Options.withAlias("r"),
    Options.withDescription("pick a session of this directory to continue"),
  ),
  mode: modeOption,
  reasoning: reasoningOption,
}, (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Chat.js")), (m) => m.chat(s, options)))).pipe(
  Command.withDescription("the interactive session: a conversation in the terminal (also: turnlog alone on a terminal)"),
)

const acpCommand = Command.make("acp", {}, () =>
  Effect.flatMap(root, (flags) =>
    Effect.flatMap(
      settingsOf(flags),
      (s) =>
        Effect.flatMap(
          load(() => import("./commands/Acp.js")),
          (m) => m.acp(s, Effect.flatMap(Invocation, (invocation) => resolveSettings(flags, invocation.env, invocation.cwd))),
        ),
    ))).pipe(
    Command.withDescription("serve the Agent Client Protocol on stdio (for editors such as Zed)"),
  )

const sessionsCommand = Command.make(
  "sessions",
  { json },
  (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Sessions.js")), (m) => m.sessions(s, options))),
).pipe(Command.withDescription("list stored sessions"))

const showCommand = Command.make(
  "show",
  {
    json,
    follow: Options.boolean("follow").pipe(
      Options.withDescription("then print what is written to the session until the turn in flight (or the next one) ends"),
    ),
    forever: Options.boolean("forever").pipe(Options.withDescription("with --follow: keep following until interrupted")),
    id: Args.text({ name: "id" }).pipe(Args.optional),
  },
  (options) =>
    Effect.flatMap(
      settings,
      (s) => Effect.flatMap(load(() => import("./commands/Show.js")), (m) => m.show(s, { ...options, id: Option.getOrUndefined(options.id) })),
    ),
).pipe(
  Command.withDescription("print a session as a readable transcript"),
)

const doctorCommand = Command.make("doctor", {
  json,
  all: Options.boolean("all").pipe(Options.withDescription("examine every stored session")),
  id: Args.text({ name: "id" }).pipe(Args.optional),
}, (options) =>
  Effect.flatMap(settings, (s) =>
    Effect.flatMap(
      load(() => import("./commands/Doctor.js")),
      (m) => m.doctor(s, { json: options.json, all: options.all, id: Option.getOrUndefined(options.id) }),
    ))).pipe(
    Command.withDescription("what this build makes of a stored session (the latest in this directory, or --all), without changing it"),
  )

const compactCommand = Command.make("compact", {
  session: Options.text("session").pipe(
    Options.withPseudoName("id"),
    Options.withDescription("compact this session"),
    Options.optional,
  ),
  continue: Options.boolean("continue").pipe(Options.withDescription("compact the latest session in this directory")),
  focus: Options.text("focus").pipe(
    Options.withPseudoName("text"),
    Options.withDescription("what the summary should keep in view"),
    Options.optional,
  ),
}, (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Compact.js")), (m) => m.compact(s, options)))).pipe(
  Command.withDescription("summarise a session's older history now and print the request estimates before and after"),
)

const exportCommand = Command.make("export", {
  html: Options.boolean("html").pipe(Options.withDescription("write the session as one self-contained HTML page")),
  output: Options.text("output").pipe(
    Options.withAlias("o"),
    Options.withPseudoName("file"),
    Options.withDescription("write to this file instead of stdout"),
    Options.optional,
  ),
  id: Args.text({ name: "id" }).pipe(Args.optional),
}, (options) =>
  Effect.flatMap(settings, (s) =>
    Effect.flatMap(
      load(() => import("./commands/Export.js")),
      (m) => m.exportSession(s, { id: Option.getOrUndefined(options.id), html: options.html, output: Option.getOrUndefined(options.output) }),
    ))).pipe(
    Command.withDescription(
      "write a session to stdout (or -o file) in the JSONL log format (for turnlog import into any store), or with --html as a page to read",
    ),
  )

const viewCommand = Command.make(
  "view",
  { id: Args.text({ name: "id" }).pipe(Args.optional) },
  (options) =>
    Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/View.js")), (m) => m.view(s, { id: Option.getOrUndefined(options.id) }))),
).pipe(
  Command.withDescription("serve the sessions in a browser on 127.0.0.1 (the address printed holds a token), a session's page live as it is written"),
)

const importCommand = Command.make(
  "import",
  { file: Args.text({ name: "file" }) },
  (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Import.js")), (m) => m.importSession(s, options))),
).pipe(
  Command.withDescription("add a session from a JSONL log file (- for stdin) to the store, under its own id, verified first"),
)

const modelsCommand = Command.make(
  "models",
  {},
  () => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Models.js")), (m) => m.models(s))),
).pipe(
  Command.withDescription("list the models --model takes: <provider>/<model>, context window, output limit (providers with a key set, and the config's)"),
)

const deleteCommand = Command.make(
  "delete",
  { id: Args.text({ name: "id" }) },
  (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Delete.js")), (m) => m.deleteSession(s, options))),
).pipe(
  Command.withDescription("delete a session and everything stored of it (refused while a live process holds it)"),
)

const forkCommand = Command.make("fork", {
  id: Args.text({ name: "id" }),
  at: Options.text("at").pipe(
    Options.withPseudoName("turn"),
    Options.withDescription("the turn the fork ends with (default: the session's last ended turn)"),
    Options.optional,
  ),
}, (options) =>
  Effect.flatMap(settings, (s) =>
    Effect.flatMap(
      load(() => import("./commands/Fork.js")),
      (m) => m.fork(s, { id: options.id, at: Option.getOrUndefined(options.at) }),
    ))).pipe(
    Command.withDescription("copy a session up to a turn into a new session (printed on stdout) that records where it came from"),
  )

const pruneCommand = Command.make("prune", {
  olderThan: Options.text("older-than").pipe(
    Options.withPseudoName("age"),
    Options.withDescription("delete the sessions last written longer ago than this: 30d, 12h, 90m, 2w"),
    // Required, said in the command's own words when it is missing.
    Options.optional,
  ),
  dryRun: Options.boolean("dry-run").pipe(Options.withDescription("name the sessions that would be deleted, delete nothing")),
}, (options) => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Delete.js")), (m) => m.prune(s, options)))).pipe(
  Command.withDescription("delete the sessions last written longer ago than an age (sessions in use are kept)"),
)

const demoCommand = Command.make("demo", {}, () => Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Demo.js")), (m) => m.demo(s))))
  .pipe(
    Command.withDescription("the keyless showcase: a scripted session through the real store and loop"),
  )

export const command = root.pipe(
  Command.withSubcommands([
    chatCommand,
    runCommand,
    acpCommand,
    sessionsCommand,
    showCommand,
    modelsCommand,
    doctorCommand,
    demoCommand,
    compactCommand,
    exportCommand,
    importCommand,
    deleteCommand,
    forkCommand,
    pruneCommand,
    viewCommand,
  ]),
)

export const cli = Command.run(command, { name: "turnlog", version: VERSION })
