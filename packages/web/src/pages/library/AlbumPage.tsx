export default function AlbumPage() {
  return (
    <section>
      <h1>AlbumPage</h1>
    </section>
  )
}
