export default function QueuePage() {
  return (
    <section>
      <h1>QueuePage</h1>
    </section>
  )
}
