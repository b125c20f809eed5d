export default function NotFoundPage() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing lives at this address. <a href="/">Go home</a>.
      </p>
    </section>
  )
}
