export default function PlaylistPage() {
  return (
    <section>
      <h1>PlaylistPage</h1>
    </section>
  )
}
