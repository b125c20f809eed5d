export { AdminImportsHttpLive, ImportsHttpLive, PlaysExportHttpLive } from "./HistoryHttp.js"
