import type { Home } from "@tonearm/core"
import { useEffect } from "preact/hooks"
import { CardRow } from "../../components/Cards.js"
import { MakeMixes, mixesNeverMade } from "../../components/MakeMixes.js"
import { Status, useLoad } from "../../components/useLoad.js"
import { api } from "../../state/api.js"
import { onServerEvent } from "../../state/events.js"
import { takePrefetched } from "../../state/prefetch.js"

/** Every section of GET /api/home, in the server's order (spec "Home section rules"). */
export default function HomePage() {
  const home = useLoad((signal) => takePrefetched<Home>("home") ?? api((client) => client.home.sections(), signal), [])
  // A rebuild (the 03:00 run, or "Make my mixes now") changes the You-might-like rows.
  useEffect(() => onServerEvent("playlist.system_rebuilt", home.reload), [])
  const data = home.data
  return (
    <section>
      <h1>Home</h1>
      <Status loaded={home} />
      {data !== undefined && (
        <>
          <CardRow title="Recently added" albums={data.recently_added} empty="Nothing added yet: scan a library." />
          <CardRow title="Last played" albums={data.last_played} empty="Play something and it shows here." />
          <CardRow title="Most played" albums={data.most_played} />
          <CardRow title="Rediscover albums" albums={data.rediscover_albums} />
          <CardRow title="Rediscover artists" artists={data.rediscover_artists} />
          {mixesNeverMade() && (
            <section class="row" aria-labelledby="home-made-for-you">
              <h2 id="home-made-for-you">Made for you</h2>
              <MakeMixes holds="Here you will find albums and artists you might like, and your mixes: For You, Discover, daily mixes." />
            </section>
          )}
          <CardRow
            title="You might like: albums"
            albums={data.you_might_like_albums}
            empty="Recommendations appear once you have listened a while."
          />
          <CardRow
            title="You might like: artists"
            artists={data.you_might_like_artists}
            empty="Recommendations appear once you have listened a while."
          />
        </>
      )}
    </section>
  )
}
