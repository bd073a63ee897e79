/**
 * pi-ai's catalog of built-in providers: every provider's models, about a
 * megabyte of tables, built when the module runs. A route of one of the
 * config's own providers needs none of it, so the router asks for it only when
 * a route names a built-in provider (or the whole list is wanted).
 *
 * In the command's build this module is replaced by one that runs pi-ai's on
 * the first call of `loadCatalog`, not when the command starts
 * (`scripts/packaging/deferred-modules.mjs`); loaded from the sources, the
 * import below runs it at once. Either way `loadCatalog` returns the module.
 */
import * as catalog from "@earendil-works/pi-ai/providers/all"

export const loadCatalog = (): typeof catalog => catalog
