/**
 * Words people type for help and the version, as the parser knows them:
 * `turnlog help [<command>]` is `turnlog [<command>] --help`, and `-v` or
 * `-V` is `--version`.
 */
export const expand = (args: ReadonlyArray<string>): Array<string> => {
  const [first, ...rest] = args
  if (first === "-v" || first === "-V") return ["--version", ...rest]
  if (first === "help") return rest.length === 0 ? ["--help"] : [rest[0]!, "--help"]
  return [...args]
}
