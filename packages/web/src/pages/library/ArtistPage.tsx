export default function ArtistPage() {
  return (
    <section>
      <h1>ArtistPage</h1>
    </section>
  )
}
