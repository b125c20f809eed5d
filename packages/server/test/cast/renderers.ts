import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { FakeServer } from "../support/fakeServer.js"

/**
 * Speakers for the cast tests: Debian's gmediarender (gmrender-resurrect, a real UPnP MediaRenderer playing into
 * GStreamer's fakesink), a fake renderer for the error paths, a long real audio track, and a recording proxy in
 * front of the server that shows what the speaker fetched.
 */

export const GMEDIARENDER = "/usr/bin/gmediarender"

/**
 * libupnp 1.8 (gmediarender's) refuses the loopback interface (UPNP_E_INVALID_INTERFACE), so the renderer
 * listens on the machine's first non-loopback IPv4 interface; the server stays on 127.0.0.1 and the speaker,
 * on the same machine, fetches from there.
 */
export const rendererInterface = (): { readonly name: string; readonly address: string } => {
  for (const [name, addresses] of Object.entries(os.networkInterfaces())) {
    const v4 = addresses?.find((address) => address.family === "IPv4" && !address.internal)
    if (v4 !== undefined) return { name, address: v4.address }
  }
  throw new Error("gmediarender needs a non-loopback IPv4 interface (libupnp refuses lo); this machine has none")
}

const freePort = async (low: number, high: number): Promise<number> => {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low))
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer()
      probe.once("error", () => resolve(false))
      probe.listen(port, "0.0.0.0", () => probe.close(() => resolve(true)))
    })
    if (free) return port
  }
  throw new Error("no free port")
}

export interface Gmediarender {
  readonly uuid: string
  readonly name: string
  readonly descriptionUrl: string
  readonly log: () => string
  readonly stop: () => Promise<void>
}

/** Starts gmediarender with audio to a null sink; fails clearly (never skips) when it is not installed. */
export const startGmediarender = async (name = "Tonearm Test Speaker"): Promise<Gmediarender> => {
  if (!fs.existsSync(GMEDIARENDER)) {
    throw new Error(`${GMEDIARENDER} is missing: apt-get install -y gmediarender (the .ci/run script installs it)`)
  }
  const network = rendererInterface()
  const port = await freePort(49_152, 65_000)
  const uuid = randomUUID()
  const logFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tonearm-gmr-")), "gmediarender.log")
  const child: ChildProcess = spawn(
    GMEDIARENDER,
    [
      "--friendly-name",
      name,
      "--uuid",
      uuid,
      "--port",
      String(port),
      "--interface-name",
      network.name,
      // sync=true: the null sink consumes audio in real time, as a speaker does (fakesink alone races to the end).
      "--gstout-audiopipe",
      "fakesink sync=true",
      "--logfile",
      logFile,
    ],
    { stdio: "ignore" },
  )
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "latin1") : "")
  const descriptionUrl = `http://${network.address}:${port}/description.xml`
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gmediarender exited (${child.exitCode}):\n${log().slice(-2000)}`)
    const ready = await fetch(descriptionUrl, { signal: AbortSignal.timeout(1000) }).then(
      (response) => response.ok,
      () => false,
    )
    if (ready) break
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`gmediarender did not answer at ${descriptionUrl}:\n${log().slice(-2000)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return {
    uuid,
    name,
    descriptionUrl,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
        setTimeout(() => child.kill("SIGKILL"), 3000).unref()
      }),
  }
}

/** A real mp3 of `seconds` of tone with the given tags (ffmpeg), long enough to pause and seek on a speaker. */
export const makeLongTrack = (
  file: string,
  tags: { readonly title: string; readonly artist: string; readonly album: string; readonly track?: number },
  seconds = 60,
) => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  execFileSync(
    "ffmpeg",
    [
      "-hide_banner",
      "-loglevel",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=440:duration=${seconds}`,
      "-c:a",
      "libmp3lame",
      "-b:a",
      "64k",
      "-metadata",
      `title=${tags.title}`,
      "-metadata",
      `artist=${tags.artist}`,
      "-metadata",
      `album=${tags.album}`,
      "-metadata",
      `track=${tags.track ?? 1}`,
      file,
    ],
    { stdio: "inherit" },
  )
}

export interface Recorded {
  readonly method: string
  readonly url: string
  readonly status: number
}

/**
 * A plain HTTP proxy in front of the server under test: the cast request names it in X-Forwarded-Host, so the
 * signed URL the speaker gets points here, and every request the speaker makes is recorded with the server's status.
 */
export const startRecordingProxy = async (target: string) => {
  const requests: Array<Recorded> = []
  const upstream = new URL(target)
  const server = http.createServer((request, response) => {
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: upstream.host },
      },
      (answer) => {
        requests.push({ method: request.method ?? "", url: request.url ?? "", status: answer.statusCode ?? 0 })
        response.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(response)
      },
    )
    forward.on("error", () => {
      response.writeHead(502)
      response.end()
    })
    request.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const port = (server.address() as net.AddressInfo).port
  return {
    host: `127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

// ---- a fake renderer ----------------------------------------------------------------------------------------

const DESCRIPTION = (uuid: string, name: string) => `<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">
<specVersion><major>1</major><minor>0</minor></specVersion>
<device>
<deviceType>urn:schemas-upnp-org:device:MediaRenderer:1</deviceType>
<friendlyName>${name}</friendlyName>
<UDN>uuid:${uuid}</UDN>
<serviceList>
<service><serviceType>urn:schemas-upnp-org:service:AVTransport:1</serviceType><serviceId>urn:upnp-org:serviceId:AVTransport</serviceId><controlURL>/ctl/avt</controlURL><eventSubURL>/evt/avt</eventSubURL><SCPDURL>/avt.xml</SCPDURL></service>
<service><serviceType>urn:schemas-upnp-org:service:RenderingControl:1</serviceType><serviceId>urn:upnp-org:serviceId:RenderingControl</serviceId><controlURL>/ctl/rc</controlURL><eventSubURL>/evt/rc</eventSubURL><SCPDURL>/rc.xml</SCPDURL></service>
</serviceList>
</device>
</root>`

export const soapOk = (action: string, service: string, values: Record<string, string> = {}) =>
  `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><u:${action}Response xmlns:u="urn:schemas-upnp-org:service:${service}:1">${Object.entries(
    values,
  )
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join("")}</u:${action}Response></s:Body></s:Envelope>`

export const soapFault = (code: number, description: string) =>
  `<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail><UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>${code}</errorCode><errorDescription>${description}</errorDescription></UPnPError></detail></s:Fault></s:Body></s:Envelope>`

/** The SOAP action a request to a fake renderer carried (`Play`, `SetAVTransportURI`, …). */
export const actionOf = (headers: http.IncomingHttpHeaders) =>
  String(headers.soapaction ?? "")
    .replace(/"/g, "")
    .split("#")[1] ?? ""

/** A fake renderer's answer to one action: a SOAP body, or the connection closed without one. */
export type RendererAnswer =
  | { readonly status?: number; readonly body: string; readonly hangUp?: never }
  | { readonly hangUp: true }

/**
 * A fake MediaRenderer on loopback: its description and a SOAP endpoint whose answer per action a test sets
 * (`answer`); by default every action succeeds, the transport says PLAYING.
 */
export const startFakeRenderer = async (name = "Fake Speaker") => {
  const uuid = randomUUID()
  const server = new FakeServer()
  const answers = new Map<string, () => RendererAnswer | Promise<RendererAnswer>>()
  server.on("GET", "/description.xml", () => ({
    body: DESCRIPTION(uuid, name),
    headers: { "content-type": "text/xml" },
  }))
  const control = (service: string) => async (request: { headers: http.IncomingHttpHeaders }) => {
    const action = actionOf(request.headers)
    const custom = answers.get(action)
    if (custom !== undefined) {
      const answer = await custom()
      if (answer.hangUp) return { hangUp: true } as const
      return { status: answer.status ?? 200, body: answer.body, headers: { "content-type": "text/xml" } }
    }
    const values: Record<string, string> =
      action === "GetTransportInfo"
        ? { CurrentTransportState: "PLAYING", CurrentTransportStatus: "OK", CurrentSpeed: "1" }
        : action === "GetPositionInfo"
          ? { Track: "1", TrackDuration: "0:01:00", TrackURI: "", RelTime: "0:00:05" }
          : action === "GetVolume"
            ? { CurrentVolume: "40" }
            : {}
    return { body: soapOk(action, service, values), headers: { "content-type": "text/xml" } }
  }
  server.on("POST", "/ctl/avt", control("AVTransport"))
  server.on("POST", "/ctl/rc", control("RenderingControl"))
  await server.start()
  return {
    uuid,
    name,
    server,
    descriptionUrl: `${server.url}/description.xml`,
    answer: (action: string, respond: () => RendererAnswer | Promise<RendererAnswer>) => answers.set(action, respond),
    /** The bodies of the SOAP requests for an action. */
    calls: (action: string) => server.requests.filter((request) => actionOf(request.headers) === action),
  }
}
