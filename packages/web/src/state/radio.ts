import type { RadioSeed } from "@tonearm/core"
import { api } from "./api.js"
import { playQueue } from "./player.js"

/**
 * Starts a radio (`POST /api/radio`) and plays it at once; every play of it is reported with source
 * `radio:<radio_id>` so the server counts it in the radio metrics family. Resolves to the radio's size.
 */
export const startRadio = async (seed: RadioSeed): Promise<number> => {
  const radio = await api((client) => client.radio.start({ payload: { seed } }))
  playQueue(radio.tracks, { source: `radio:${radio.radio_id}` })
  return radio.tracks.length
}
