import { describe, expect, it } from "@effect/vitest"
import {
  didlLite,
  formatUpnpTime,
  parseRendererDescription,
  parseSoapFault,
  parseSsdp,
  parseUpnpTime,
  soapEnvelope,
  trackIdOfStreamUrl,
  xmlElement,
  xmlEscape,
  xmlUnescape,
} from "../src/index.js"

const description = (control: string, base = "") => `<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0">${base}<device>
<deviceType>urn:schemas-upnp-org:device:MediaRenderer:1</deviceType>
<friendlyName>Kitchen &amp; Bath</friendlyName><UDN>uuid:ABC-123</UDN>
<serviceList>
<service><serviceType>urn:schemas-upnp-org:service:AVTransport:1</serviceType><controlURL>${control}</controlURL></service>
<service><serviceType>urn:schemas-upnp-org:service:RenderingControl:1</serviceType><controlURL>rc</controlURL></service>
</serviceList></device></root>`

describe("UPnP text rules", () => {
  it("escapes the five XML characters and reads them back, numeric references included", () => {
    const title = `Tom & Jerry <Live> "Encore" it's`
    expect(xmlEscape(title)).toBe("Tom &amp; Jerry &lt;Live&gt; &quot;Encore&quot; it&apos;s")
    expect(xmlUnescape(xmlEscape(title))).toBe(title)
    expect(xmlUnescape("&#233;&#x263A;")).toBe("é☺")
  })

  it("DIDL-Lite inside a SOAP argument is escaped twice and reads back exactly", () => {
    const didl = didlLite({
      id: "t1",
      title: "A & <B>",
      artist: 'C "D"',
      album: "E's",
      durationMs: 61_250,
      url: "http://h/api/tracks/x/stream.flac?exp=1&token=t",
      mime: "audio/flac",
    })
    const body = soapEnvelope("urn:schemas-upnp-org:service:AVTransport:1", "SetAVTransportURI", [
      ["InstanceID", 0],
      ["CurrentURIMetaData", didl],
    ])
    expect(body).not.toContain("<DIDL-Lite")
    const inner = xmlElement(body, "CurrentURIMetaData")!
    expect(inner).toBe(didl)
    expect(xmlElement(inner, "title")).toBe("A & <B>")
    expect(xmlElement(inner, "artist")).toBe('C "D"')
    expect(xmlElement(inner, "res")).toBe("http://h/api/tracks/x/stream.flac?exp=1&token=t")
    expect(inner).toContain('protocolInfo="http-get:*:audio/flac:*" duration="0:01:01.250"')
  })

  it("UPnP times: H+:MM:SS[.F] both ways; NOT_IMPLEMENTED is unknown", () => {
    expect(formatUpnpTime(3_723_000)).toBe("1:02:03")
    expect(formatUpnpTime(5_007, true)).toBe("0:00:05.007")
    expect(parseUpnpTime("0:01:30")).toBe(90_000)
    expect(parseUpnpTime("10:00:00.5")).toBe(36_000_500)
    expect(parseUpnpTime("0:00:01.1/4")).toBe(1_250)
    expect(parseUpnpTime("NOT_IMPLEMENTED")).toBeUndefined()
  })

  it("a description gives the id, name and absolute control URLs; a control URL on another host is refused", () => {
    const found = parseRendererDescription(description("/ctl/avt"), "http://10.0.0.5:49152/desc.xml")
    expect(found).toEqual({
      id: "abc-123",
      name: "Kitchen & Bath",
      avTransportUrl: "http://10.0.0.5:49152/ctl/avt",
      renderingControlUrl: "http://10.0.0.5:49152/rc",
    })
    expect(parseRendererDescription(description("http://169.254.169.254/x"), "http://10.0.0.5:49152/d.xml")).toBe(
      undefined,
    )
    const based = parseRendererDescription(
      description("ctl", "<URLBase>http://10.0.0.5:8080/dev/</URLBase>"),
      "http://10.0.0.5:8080/d.xml",
    )
    expect(based?.avTransportUrl).toBe("http://10.0.0.5:8080/dev/ctl")
  })

  it("SSDP messages: responses, NOTIFY alive and byebye; SOAP faults; our stream URLs", () => {
    expect(parseSsdp("HTTP/1.1 200 OK\r\nST: urn:x\r\nLOCATION: http://a/d.xml\r\n\r\n")).toEqual({
      type: "response",
      headers: { st: "urn:x", location: "http://a/d.xml" },
    })
    expect(parseSsdp("NOTIFY * HTTP/1.1\r\nNTS: ssdp:byebye\r\nUSN: uuid:x::urn:y\r\n\r\n").type).toBe("byebye")
    expect(parseSsdp("NOTIFY * HTTP/1.1\r\nNTS: ssdp:alive\r\n\r\n").type).toBe("alive")
    expect(
      parseSoapFault(
        "<s:Envelope><s:Body><s:Fault><detail><UPnPError><errorCode>701</errorCode><errorDescription>Transition not available</errorDescription></UPnPError></detail></s:Fault></s:Body></s:Envelope>",
      ),
    ).toEqual({ code: "701", description: "Transition not available" })
    expect(parseSoapFault("<s:Envelope><s:Body><u:PlayResponse/></s:Body></s:Envelope>")).toBeUndefined()
    expect(trackIdOfStreamUrl("http://h/api/tracks/0E0B1B5C-1111-4222-8333-444455556666/stream.mp3?exp=1")).toBe(
      "0e0b1b5c-1111-4222-8333-444455556666",
    )
    expect(trackIdOfStreamUrl("http://radio.example/stream")).toBeUndefined()
  })
})
