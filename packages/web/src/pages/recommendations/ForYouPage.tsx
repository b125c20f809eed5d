import { useEffect } from "preact/hooks"
import { CardRow } from "../../components/Cards.js"
import { useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { onServerEvent } from "../../state/events.js"
import { SystemMix } from "./components/SystemMix.js"

/** For You (source `for_you`): the mix, its refresh and rotation shuffle, and the "You might like" rows of Home. */
export default function ForYouPage() {
  const home = useLoad((signal) => api((client) => client.home.sections(), signal), [])
  useEffect(() => onServerEvent("playlist.system_rebuilt", home.reload), [])
  return (
    <div>
      <SystemMix kind="for_you" title="For You" />
      {home.data !== undefined && (
        <>
          <CardRow
            title="You might like: albums"
            albums={home.data.you_might_like_albums}
            empty="Recommendations appear once you have listened a while."
          />
          <CardRow
            title="You might like: artists"
            artists={home.data.you_might_like_artists}
            empty="Recommendations appear once you have listened a while."
          />
        </>
      )}
    </div>
  )
}
