/**
 * The terminal going away while the interactive session holds it. The
 * process gets SIGHUP, which closes a running turn as `run` closes it (see
 * `main`). Two things would otherwise end the process before the turn is
 * closed: a closing terminal commonly delivers SIGHUP more than once (to the
 * foreground group, and again through the shell or multiplexer that ran it),
 * and `main` takes a second signal as the way out of a stuck shutdown; and
 * reading the closed terminal fails (EIO), which unhandled would be a crash.
 * So while the session is on screen, SIGHUPs after the first are ignored (the
 * terminal is gone; nobody asked twice — SIGTERM and SIGINT still force), and
 * a failed or ended read of the terminal is taken as the hang-up it is.
 */

/** Watches for the hang-up until the returned function is called. */
export const watch = (): () => void => {
  const ignore = () => {}
  const hangUp = () => {
    // The first SIGHUP is `main`'s; `ignore` keeps any later one from ending the process.
    process.kill(process.pid, "SIGHUP")
  }
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code === "EIO" || error.code === "ENXIO" || error.code === "EBADF") return hangUp()
    throw error
  }
  process.on("SIGHUP", ignore)
  process.stdin.on("error", onError)
  process.stdin.on("end", hangUp)
  return () => {
    process.off("SIGHUP", ignore)
    process.stdin.off("error", onError)
    process.stdin.off("end", hangUp)
  }
}
