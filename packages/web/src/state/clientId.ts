/**
 * This browser's `client_id` for play events: made once and kept in localStorage, so every play from this
 * browser carries the same id (crypto.randomUUID needs a secure context; a LAN address over http is not one).
 */
export const clientId = (): string => {
  const stored = localStorage.getItem("tonearm.client_id")
  if (stored !== null) return stored
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  bytes[6] = (bytes[6]! & 0x0f) | 0x40
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("")
  const id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  localStorage.setItem("tonearm.client_id", id)
  return id
}
