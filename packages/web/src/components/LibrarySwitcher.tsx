import { chooseLibrary, currentLibrary, myLibraries } from "../state/libraries.js"

/** Browse all of the caller's libraries or one: shown only to a listener who hears several. */
export function LibrarySwitcher() {
  const libraries = myLibraries.value
  if (libraries.length < 2) return null
  return (
    <label class="library-switcher">
      <span>Library</span>
      <select
        aria-label="Library"
        value={currentLibrary.value === undefined ? "" : String(currentLibrary.value)}
        onChange={(event) => {
          const value = event.currentTarget.value
          chooseLibrary(value === "" ? undefined : Number(value))
        }}
      >
        <option value="">All libraries</option>
        {libraries.map((library) => (
          <option key={library.id} value={String(library.id)}>
            {library.name}
          </option>
        ))}
      </select>
    </label>
  )
}
