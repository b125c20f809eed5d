export default function PlaylistsPage() {
  return (
    <section>
      <h1>PlaylistsPage</h1>
    </section>
  )
}
