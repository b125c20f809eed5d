/**
 * The Subsonic JSON↔XML mapping as a pure serializer. A response is a tree of plain objects: an object is
 * an element, its scalar properties are attributes, an array is repeated child elements named by its key
 * (an array of scalars gives elements with text), and a property named `value` is the element's text. A few
 * protocol elements hold text children instead of attributes (artistInfo's `biography`, …): the caller
 * names them per parent element in `textChildren`.
 */
export type XmlValue = string | number | boolean | null | undefined | XmlObject | ReadonlyArray<XmlValue>
export interface XmlObject {
  readonly [key: string]: XmlValue
}

export interface XmlOptions {
  /** Per element name, the scalar keys written as `<key>text</key>` children rather than attributes. */
  readonly textChildren?: Readonly<Record<string, ReadonlyArray<string>>>
}

/** Characters XML 1.0 cannot carry at all (C0 controls other than tab, newline, carriage return; lone surrogates). */
const INVALID =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to drop
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  "\t": "&#9;",
  "\n": "&#10;",
  "\r": "&#13;",
}

/** Attribute values keep their tabs and line breaks (escaped, so a parser does not normalise them away). */
export const escapeXmlAttribute = (text: string): string =>
  text.replace(INVALID, "").replace(/[&<>"'\t\n\r]/g, (char) => ENTITIES[char]!)

export const escapeXmlText = (text: string): string =>
  text.replace(INVALID, "").replace(/[&<>]|\r/g, (char) => ENTITIES[char]!)

const isScalar = (value: XmlValue): value is string | number | boolean =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean"

const scalarText = (value: string | number | boolean) => (typeof value === "string" ? value : String(value))

const element = (name: string, value: XmlValue, options: XmlOptions, out: Array<string>): void => {
  if (value === null || value === undefined) return
  if (Array.isArray(value)) {
    for (const item of value as ReadonlyArray<XmlValue>) element(name, item, options, out)
    return
  }
  if (isScalar(value)) {
    out.push(`<${name}>${escapeXmlText(scalarText(value))}</${name}>`)
    return
  }
  const object = value as XmlObject
  const textKeys = options.textChildren?.[name] ?? []
  const attributes: Array<string> = []
  const children: Array<readonly [string, XmlValue]> = []
  let text: string | undefined
  for (const [key, child] of Object.entries(object)) {
    if (child === null || child === undefined) continue
    if (key === "value" && isScalar(child)) text = scalarText(child)
    else if (isScalar(child) && !textKeys.includes(key))
      attributes.push(` ${key}="${escapeXmlAttribute(scalarText(child))}"`)
    else children.push([key, child])
  }
  const open = `<${name}${attributes.join("")}`
  if (children.length === 0 && text === undefined) {
    out.push(`${open}/>`)
    return
  }
  out.push(`${open}>`)
  if (text !== undefined) out.push(escapeXmlText(text))
  for (const [key, child] of children) element(key, child, options, out)
  out.push(`</${name}>`)
}

/** One document: the XML declaration, then `root` as the element `name` (with `xmlns` when given). */
export const toXml = (name: string, root: XmlObject, options: XmlOptions = {}): string => {
  const out: Array<string> = ['<?xml version="1.0" encoding="UTF-8"?>']
  element(name, root, options, out)
  return out.join("")
}
