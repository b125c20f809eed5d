export default function AlbumsPage() {
  return (
    <section>
      <h1>AlbumsPage</h1>
    </section>
  )
}
