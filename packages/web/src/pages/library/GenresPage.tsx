export default function GenresPage() {
  return (
    <section>
      <h1>GenresPage</h1>
    </section>
  )
}
