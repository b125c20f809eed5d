import { Context, Effect, Layer } from "effect"
import { CATALOG_DEFAULTS, type CatalogSettings, catalogSettingsOf, TonearmConfig } from "../config/TonearmConfig.js"

/**
 * The operator's catalogue settings as the scanner reads them (artist separators, sort articles). A reference
 * with the defaults, so a scan run without the config (a test of one phase) reads tags the default way.
 */
export class CatalogRules extends Context.Reference<CatalogRules>()("@tonearm/server/CatalogRules", {
  defaultValue: (): CatalogSettings => CATALOG_DEFAULTS,
}) {
  static readonly layer = Layer.effect(
    CatalogRules,
    Effect.map(TonearmConfig, (settings) => catalogSettingsOf(settings)),
  )
}
