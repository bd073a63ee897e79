// The browser the page tests use: Debian's chromium driven by playwright-core,
// headless, with a fresh profile and nothing that phones home. Without
// /usr/bin/chromium the tests are skipped with one line on stderr, unless
// TURNLOG_REQUIRE_BROWSER is set, so a missing browser cannot pass as "skipped".
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type BrowserContext, chromium } from "playwright-core"

export const CHROMIUM = process.env.TURNLOG_CHROMIUM ?? "/usr/bin/chromium"

const required = (process.env.TURNLOG_REQUIRE_BROWSER ?? "") !== ""
const missing = !existsSync(CHROMIUM)
if (missing && !required) {
  process.stderr.write(`browser tests skipped: no ${CHROMIUM} (apt-get install -y chromium); set TURNLOG_REQUIRE_BROWSER=1 to fail instead\n`)
}

/** Whether the browser tests are skipped here (no chromium, and not required). */
export const skipBrowser = missing && !required

/** A headless chromium with its own new profile; `close` removes the profile. */
export const launch = async (options: { readonly colorScheme?: "light" | "dark" } = {}): Promise<{
  readonly context: BrowserContext
  readonly close: () => Promise<void>
}> => {
  const profile = mkdtempSync(join(tmpdir(), "turnlog-chromium-"))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
    colorScheme: options.colorScheme ?? "light",
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}
