import { useSignal } from "@preact/signals"
import { AdminOnly } from "../../components/AdminOnly.js"
import { plural, when } from "../../components/format.js"
import { TableScroll } from "../../components/TableScroll.js"
import { useAction } from "../../components/useAction.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { session } from "../../state/session.js"

interface LibraryChoice {
  readonly id: number
  readonly name: string
}

/**
 * Which libraries a listener hears: one checkbox per library, saved at once (PUT /api/admin/users/{id}/libraries).
 * Admins hear every library.
 */
function UserLibraries(props: {
  readonly userId: string
  readonly username: string
  readonly isAdmin: boolean
  readonly libraries: ReadonlyArray<LibraryChoice>
  readonly run: ReturnType<typeof useAction>["run"]
}) {
  const given = useLoad(
    (signal) => api((client) => client.adminLibraries.userLibraries({ path: { id: props.userId as never } }), signal),
    [props.userId],
  )
  if (props.isAdmin) return <span class="muted">All (admin)</span>
  if (given.data === undefined) return <Status loaded={given} />
  const ids = given.data.library_ids
  return (
    <fieldset class="library-access" aria-label={`Libraries of ${props.username}`}>
      {props.libraries.map((library) => (
        <label class="check" key={library.id}>
          <input
            type="checkbox"
            checked={ids.includes(library.id as never)}
            aria-label={`${library.name} for ${props.username}`}
            onChange={(event) => {
              const on = event.currentTarget.checked
              const next = on ? [...ids, library.id] : ids.filter((id) => id !== library.id)
              void props.run(
                async () => {
                  await api((client) =>
                    client.adminLibraries.setUserLibraries({
                      path: { id: props.userId as never },
                      payload: { library_ids: next as never },
                    }),
                  )
                  given.reload()
                },
                { done: `${props.username} ${on ? "hears" : "no longer hears"} ${library.name}.` },
              )
            }}
          />{" "}
          {library.name}
        </label>
      ))}
    </fieldset>
  )
}

/** Admin: accounts. Create one, mint a password-reset link to hand over, toggle debug mode, delete. */
function Users() {
  const users = useLoad((signal) => api((client) => client.adminUsers.list(), signal), [])
  const libraries = useLoad((signal) => api((client) => client.adminLibraries.list(), signal), [])
  const { message, run } = useAction(users.reload)
  const link = useSignal<{ readonly username: string; readonly url: string } | undefined>(undefined)

  const create = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const data = new FormData(form)
    const text = (name: string) => String(data.get(name) ?? "").trim()
    const created = await run(
      () =>
        api((client) =>
          client.adminUsers.create({
            payload: {
              username: text("username"),
              password: String(data.get("password") ?? ""),
              ...(text("email") === "" ? {} : { email: text("email") }),
              ...(text("display_name") === "" ? {} : { display_name: text("display_name") }),
              is_admin: data.get("is_admin") === "on",
            } as never,
          }),
        ),
      { done: (made) => `Created ${made.user.username}.`, failed: "Could not create the account" },
    )
    if (created) form.reset()
  }

  return (
    <section>
      <h1>Users</h1>
      <form class="admin-form" onSubmit={create} aria-labelledby="new-user" noValidate>
        <h2 id="new-user">New account</h2>
        <label>
          Username
          <input name="username" required autoComplete="off" />
        </label>
        <label>
          Password
          <input name="password" type="password" required autoComplete="new-password" />
        </label>
        <label>
          Email (optional)
          <input name="email" type="email" autoComplete="off" />
        </label>
        <label>
          Display name (optional)
          <input name="display_name" autoComplete="off" />
        </label>
        <label class="check">
          <input name="is_admin" type="checkbox" /> Administrator
        </label>
        <button type="submit" class="primary">
          Create account
        </button>
      </form>
      <p role="status" class="admin-message">
        {message.value}
      </p>
      {link.value !== undefined && (
        <p class="reset-link">
          Reset link for {link.value.username} (single use, one hour): <code>{link.value.url}</code>
        </p>
      )}
      <Status loaded={users} />
      {users.data !== undefined && (
        <TableScroll label="Accounts">
          <table class="data-table">
            <caption>{plural(users.data.length, "account")}</caption>
            <thead>
              <tr>
                <th scope="col">Username</th>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Time zone</th>
                <th scope="col">Created</th>
                <th scope="col">Debug mode</th>
                {(libraries.data?.items.length ?? 0) > 1 && <th scope="col">Libraries</th>}
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((user) => (
                <tr key={user.id} data-user={user.username}>
                  <th scope="row">{user.username}</th>
                  <td>{user.display_name ?? "–"}</td>
                  <td>{user.email ?? "–"}</td>
                  <td>{user.is_admin ? "Admin" : "Listener"}</td>
                  <td>{user.timezone}</td>
                  <td>{when(user.created_at)}</td>
                  <td>
                    <input
                      type="checkbox"
                      checked={user.debug_mode_enabled}
                      aria-label={`Debug mode for ${user.username}`}
                      onChange={(event) => {
                        const enabled = event.currentTarget.checked
                        void run(
                          () =>
                            api((client) =>
                              client.adminUsers.setDebugMode({ path: { id: user.id }, payload: { enabled } }),
                            ),
                          { done: `Debug mode ${enabled ? "on" : "off"} for ${user.username}.` },
                        )
                      }}
                    />
                  </td>
                  {libraries.data !== undefined && libraries.data.items.length > 1 && (
                    <td>
                      <UserLibraries
                        userId={user.id}
                        username={user.username}
                        isAdmin={user.is_admin}
                        libraries={libraries.data.items}
                        run={run}
                      />
                    </td>
                  )}
                  <td class="row-actions">
                    <button
                      type="button"
                      aria-label={`Reset link for ${user.username}`}
                      onClick={() =>
                        run(
                          async () => {
                            const minted = await api((client) => client.adminUsers.resetLink({ path: { id: user.id } }))
                            link.value = { username: user.username, url: minted.url }
                          },
                          { done: "" },
                        )
                      }
                    >
                      Reset link
                    </button>
                    {user.id !== session.value?.id && (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Delete ${user.username}`}
                        onClick={() =>
                          run(() => api((client) => client.adminUsers.delete({ path: { id: user.id } })), {
                            confirm: `Delete the account ${user.username}? Their likes, playlists and plays go too.`,
                            done: `Deleted ${user.username}.`,
                          })
                        }
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </section>
  )
}

export default function UsersPage() {
  return (
    <AdminOnly>
      <Users />
    </AdminOnly>
  )
}
