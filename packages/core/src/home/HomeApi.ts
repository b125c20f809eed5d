import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../http/Authentication.js"
import { Home, HomeIndex } from "./Home.js"

/** The home screen (spec "Home section rules"); /api/home/index is the same sections as id arrays. */
export class HomeApi extends HttpApiGroup.make("home")
  .add(HttpApiEndpoint.get("sections", "/api/home").addSuccess(Home))
  .add(HttpApiEndpoint.get("index", "/api/home/index").addSuccess(HomeIndex))
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Home") {}
