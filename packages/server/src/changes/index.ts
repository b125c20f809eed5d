export { type Change, ChangeLog, changesOf } from "./ChangeLog.js"
