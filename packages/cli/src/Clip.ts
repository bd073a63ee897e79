/**
 * Messages that quote what the user wrote stay one readable line: a quoted
 * value (or a key) longer than a short prefix is cut to that prefix with its
 * length, so a 30 MB string in a config is named, not echoed back.
 */

const PREFIX = 40

/** `text` cut to `max` characters, saying how many there were. */
export const clip = (text: string, max = PREFIX): string => text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`

/** Every double-quoted string in `message` longer than the prefix, cut to it. */
export const clipQuoted = (message: string): string =>
  message.replace(
    /"((?:[^"\\]|\\.)*)"/g,
    (whole, inner: string) => inner.length <= PREFIX ? whole : `"${inner.slice(0, PREFIX)}…" (${inner.length} characters)`,
  )
