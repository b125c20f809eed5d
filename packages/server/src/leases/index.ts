export { dutyLayer, type HeldLease, LEASE_TTL_MS, Leases, scanLeaseOf } from "./Leases.js"
