/**
 * The `turnlog` command line: global options on the root, one subcommand per
 * task. Each handler resolves the settings first, so a bad config is reported
 * before anything else happens.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import { UsageError } from "./CliError.js"
import * as EnvironmentBlock from "./EnvironmentBlock.js"
import * as Secrets from "./Secrets.js"
import { resolveSettings, STORE_KINDS, type StoreKind } from "./Settings.js"
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

const root = Command.make("turnlog", globals, () =>
  new UsageError({ message: "choose a command: run, acp, sessions, show, doctor, compact, export, import or demo (see turnlog --help)" }))

// From here on no credential value reaches stdout or stderr (see `Secrets`), and
// none is left in this process's environment block for a command to read
// through /proc (see `EnvironmentBlock`).
const settings = Effect.flatMap(root, (flags) => resolveSettings(flags)).pipe(
  Effect.tap((s) =>
    Effect.sync(() => {
      const secrets = Secrets.of(s)
      Secrets.guardOutput(secrets.redactor)
      EnvironmentBlock.scrub(secrets.names)
    })
  ),
)

// Each command's module loads when it runs: a command pays only for what it uses
// (the ACP SDK, the agent loop, pi-ai), which is most of a short command's start-up.
const load = <M>(module: () => Promise<M>) => Effect.promise(module)

const json = Options.boolean("json").pipe(Options.withDescription("print JSON"))

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
  mode: Options.choice("mode", ["ask", "read-only", "auto-edit", "full-access"]).pipe(
    Options.withDescription("the session's mode, kept in its log: ask, read-only (plan), auto-edit (writes without asking), full-access"),
    Options.optional,
  ),
  // None: the prompt is piped in (`echo … | turnlog run`); `-` reads it from stdin.
  prompt: Args.text({ name: "prompt" }).pipe(
    Args.withDescription("the prompt; - (or none, with input piped) reads it from stdin; piped input goes after a prompt, fenced"),
    Args.repeated,
  ),
}, (options) =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Run.js")), (m) => m.run(s, options)))).pipe(
  Command.withDescription("run one turn: the answer on stdout, the session id and tool activity on stderr"),
)

const acpCommand = Command.make("acp", {}, () =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Acp.js")), (m) => m.acp(s)))).pipe(
  Command.withDescription("serve the Agent Client Protocol on stdio (for editors such as Zed)"),
)

const sessionsCommand = Command.make("sessions", { json }, (options) =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Sessions.js")), (m) => m.sessions(s, options)))).pipe(Command.withDescription("list stored sessions"))

const showCommand = Command.make("show", {
  json,
  follow: Options.boolean("follow").pipe(
    Options.withDescription("then print what is written to the session until the turn in flight (or the next one) ends"),
  ),
  forever: Options.boolean("forever").pipe(Options.withDescription("with --follow: keep following until interrupted")),
  id: Args.text({ name: "id" }),
}, (options) =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Show.js")), (m) => m.show(s, options)))).pipe(
    Command.withDescription("print a session as a readable transcript"),
  )

const doctorCommand = Command.make("doctor", { json, id: Args.text({ name: "id" }).pipe(Args.optional) }, (options) =>
  Effect.flatMap(settings, (s) =>
    Effect.flatMap(
      load(() => import("./commands/Doctor.js")),
      (m) => m.doctor(s, { json: options.json, id: Option.getOrUndefined(options.id) }),
    ))).pipe(
    Command.withDescription("what this build makes of stored sessions, without changing them"),
  )

const compactCommand = Command.make("compact", {
  session: Options.text("session").pipe(
    Options.withPseudoName("id"),
    Options.withDescription("compact this session"),
    Options.optional,
  ),
  continue: Options.boolean("continue").pipe(Options.withDescription("compact the latest session in this directory")),
}, (options) =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Compact.js")), (m) => m.compact(s, options)))).pipe(
  Command.withDescription("summarise a session's older history now and print the request estimates before and after"),
)

const exportCommand = Command.make("export", { id: Args.text({ name: "id" }) }, (options) =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Export.js")), (m) => m.exportSession(s, options)))).pipe(
    Command.withDescription("write a session to stdout in the JSONL log format (for turnlog import into any store)"),
  )

const importCommand = Command.make("import", { file: Args.text({ name: "file" }) }, (options) =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Import.js")), (m) => m.importSession(s, options)))).pipe(
    Command.withDescription("add a session from a JSONL log file (- for stdin) to the store, under its own id, verified first"),
  )

const demoCommand = Command.make("demo", {}, () =>
  Effect.flatMap(settings, (s) => Effect.flatMap(load(() => import("./commands/Demo.js")), (m) => m.demo(s)))).pipe(
  Command.withDescription("the keyless showcase: a scripted session through the real store and loop"),
)

export const command = root.pipe(
  Command.withSubcommands([runCommand, acpCommand, sessionsCommand, showCommand, doctorCommand, demoCommand, compactCommand, exportCommand, importCommand]),
)

export const cli = Command.run(command, { name: "turnlog", version: VERSION })
