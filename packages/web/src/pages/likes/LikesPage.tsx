export default function LikesPage() {
  return (
    <section>
      <h1>LikesPage</h1>
    </section>
  )
}
