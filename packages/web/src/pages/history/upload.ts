import { ImportCreated } from "@tonearm/core"
import { Schema } from "effect"
import { session } from "../../state/session.js"

/** How far an upload is: bytes sent of the whole request. */
export interface UploadProgress {
  readonly sent: number
  readonly total: number
}

const decodeCreated = Schema.decodeUnknownSync(ImportCreated)

const failureOf = (status: number, text: string): string => {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } }
    if (typeof body.error?.message === "string" && body.error.message !== "") return body.error.message
  } catch {
    // Not the error envelope (a proxy's page): say the status.
  }
  return `the server answered ${status}`
}

/**
 * Uploads an export to an import route (`/api/me/imports`, `/api/admin/imports`) and answers the new import.
 * The one request the web player makes outside the SDK: only XMLHttpRequest reports upload progress (fetch cannot
 * over HTTP/1.1), and an export can be hundreds of megabytes. Same origin: the session cookie goes with it.
 */
export const uploadExport = (
  route: "/api/me/imports" | "/api/admin/imports",
  fields: { readonly file: File; readonly source: string },
  onProgress: (progress: UploadProgress) => void,
): Promise<ImportCreated> =>
  new Promise((resolve, reject) => {
    const form = new FormData()
    // The source first: the server reads the fields before the file streams to disk.
    form.append("source", fields.source)
    // As plain bytes: a `.json` file's own type (application/json) makes some multipart parsers read it as a field.
    form.append("file", new Blob([fields.file], { type: "application/octet-stream" }), fields.file.name)
    const request = new XMLHttpRequest()
    request.open("POST", route)
    request.upload.onprogress = (event) =>
      onProgress({ sent: event.loaded, total: event.lengthComputable ? event.total : fields.file.size })
    request.onload = () => {
      if (request.status === 202) {
        try {
          resolve(decodeCreated(JSON.parse(request.responseText)))
        } catch {
          reject(new Error("the server's answer was not an import"))
        }
        return
      }
      if (request.status === 401) session.value = null
      reject(new Error(failureOf(request.status, request.responseText)))
    }
    request.onerror = () => reject(new Error("the upload was cut off (network)"))
    request.onabort = () => reject(new Error("the upload was stopped"))
    request.send(form)
  })
