import type { PageProps } from "../../state/router.js"
import { SystemMix } from "./components/SystemMix.js"

/** One system mix by its variant (`/mixes/daily_mix:2`): played with that variant as the source. */
export default function MixPage({ params }: PageProps) {
  return <SystemMix kind={params.kind!} />
}
