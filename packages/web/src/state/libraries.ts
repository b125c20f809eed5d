import { signal } from "@preact/signals"
import { api } from "./api.js"

/** One of the caller's libraries (`GET /api/library/libraries`). */
export interface LibraryChoice {
  readonly id: number
  readonly name: string
}

const KEY = "tonearm.library"

/** The caller's libraries; the switcher shows when there are several. */
export const myLibraries = signal<ReadonlyArray<LibraryChoice>>([])

const stored = (): number | undefined => {
  try {
    const value = Number(localStorage.getItem(KEY))
    return Number.isInteger(value) && value > 0 ? value : undefined
  } catch {
    return undefined
  }
}

/** The library browsing is narrowed to (the browse routes' `library_id`); undefined: all of the caller's. */
export const currentLibrary = signal<number | undefined>(stored())

/** Narrows browsing to one library, or (undefined) none; kept for this browser. */
export const chooseLibrary = (id: number | undefined) => {
  currentLibrary.value = id
  try {
    if (id === undefined) localStorage.removeItem(KEY)
    else localStorage.setItem(KEY, String(id))
  } catch {
    // Private mode: the choice lasts this page.
  }
}

/** Reads the caller's libraries; a remembered choice of a library no longer theirs is dropped. */
export const loadLibraries = async () => {
  const list = await api((client) => client.library.libraries())
  myLibraries.value = list.items.map((item) => ({ id: item.id, name: item.name }))
  const chosen = currentLibrary.value
  if (chosen !== undefined && (list.items.length < 2 || !list.items.some((item) => item.id === chosen))) {
    chooseLibrary(undefined)
  }
}

/** The `library_id` URL parameter of a browse request: present only when one library is chosen. */
export const libraryParam = (): { readonly library_id?: never } =>
  currentLibrary.value === undefined ? {} : { library_id: currentLibrary.value as never }
