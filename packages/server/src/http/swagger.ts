import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"

/**
 * Swagger UI at `path`, as `HttpApiSwagger.layer` serves it, but with its 3.4 MB inline script loaded on the
 * first request rather than at boot: `HttpApiSwagger.layer` imports it and renders the whole page up front,
 * which keeps ~10 MB in every server's heap for a page an operator opens now and then. The assets come from
 * the installed @effect/platform (its own, version-pinned module), so the page is the one upstream serves.
 */
export const lazySwaggerLayer = (options: { readonly path: `/${string}` }) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function* () {
      const { api } = yield* HttpApi.Api
      const render = async () => {
        const platform = path.dirname(createRequire(import.meta.url).resolve("@effect/platform/package.json"))
        const assets = (await import(
          pathToFileURL(path.join(platform, "dist", "esm", "internal", "httpApiSwagger.js")).href
        )) as { readonly css: string; readonly javascript: string }
        const spec = OpenApi.fromApi(api)
        return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="width=device-width, initial-scale=1" />
  <title>${escapeHtml(spec.info.title)} Documentation</title>
  <style>${assets.css}</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script id="swagger-spec" type="application/json">
    ${escapeJson(spec)}
  </script>
  <script>
    ${assets.javascript}
    window.onload = () => {
      window.ui = SwaggerUIBundle({
        spec: JSON.parse(document.getElementById("swagger-spec").textContent),
        dom_id: '#swagger-ui',
      });
    };
  </script>
</body>
</html>`
      }
      yield* router.get(
        options.path,
        // Rendered per request (the module stays loaded after the first): the page is not kept between visits.
        Effect.promise(render).pipe(Effect.map((html) => HttpServerResponse.html(html))),
      )
    }),
  )

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

/** JSON inside a <script> element: no `</script>` break-out, no raw line terminators. */
const escapeJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))
