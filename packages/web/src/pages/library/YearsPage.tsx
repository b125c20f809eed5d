export default function YearsPage() {
  return (
    <section>
      <h1>YearsPage</h1>
    </section>
  )
}
