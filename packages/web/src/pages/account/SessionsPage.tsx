export default function SessionsPage() {
  return (
    <section>
      <h1>SessionsPage</h1>
    </section>
  )
}
