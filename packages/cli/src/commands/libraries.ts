import type { Command } from "commander"
import { type AddLibraryFlags, type RemoteFlags, withRemoteFlags } from "../flags.js"

const actions = () => import("../actions/libraries.js")

/** `tonearm libraries list|add|remove|scan`: the running server's libraries (admin). */
export const registerLibraries = (program: Command) => {
  const libraries = program
    .command("libraries")
    .description("the running server's music folders, each a library with its own scan and listeners (admin)")

  withRemoteFlags(libraries.command("list").description("every library: id, name, folder, tracks, last scan")).action(
    async (flags: RemoteFlags) => (await actions()).listLibraries(flags),
  )

  withRemoteFlags(
    libraries
      .command("add <dir>")
      .description(
        "add a music folder as a library and scan it (a folder removed before comes back with its tracks); nobody but admins hears it until given it",
      )
      .option("--name <name>", "the library's name (default: the folder's name)"),
  ).action(async (dir: string, flags: AddLibraryFlags) => (await actions()).addLibrary(dir, flags))

  withRemoteFlags(
    libraries
      .command("remove <library>")
      .description(
        "remove a library (by id or name): its tracks become missing, every like, playlist entry and play is kept until purged",
      ),
  ).action(async (library: string, flags: RemoteFlags) => (await actions()).removeLibrary(library, flags))

  withRemoteFlags(
    libraries
      .command("scan [library]")
      .description("scan one library (by id or name), or every one, and follow each library's progress to the end"),
  ).action(async (library: string | undefined, flags: RemoteFlags) => (await actions()).scanLibraries(library, flags))
}
