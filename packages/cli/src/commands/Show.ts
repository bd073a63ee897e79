/** `turnlog show <id>`: a session as a readable transcript, read without changing it. */
import { Effect } from "effect"
import { SessionStore } from "@turnlog/store"
import * as Layers from "../Layers.js"
import { json, out } from "../Output.js"
import * as SessionIdArg from "../SessionIdArg.js"
import type { Settings } from "../Settings.js"
import { toCommandError } from "../StoreErrors.js"
import * as Transcript from "../Transcript.js"

export const show = (settings: Settings, options: { readonly id: string; readonly json: boolean }) =>
  Effect.gen(function*() {
    const store = yield* SessionStore.SessionStore
    const id = yield* SessionIdArg.parse(options.id)
    const session = yield* store.read(id).pipe(Effect.mapError(toCommandError))
    const transcript = Transcript.fromSession(session)
    yield* options.json ? json(transcript) : out(`${Transcript.render(transcript)}\n`)
  }).pipe(Effect.provide(Layers.readStoreLayer(settings)))
