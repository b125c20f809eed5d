export default function SearchPage() {
  return (
    <section>
      <h1>SearchPage</h1>
    </section>
  )
}
