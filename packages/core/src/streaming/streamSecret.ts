import { Either, Encoding } from "effect"

/** Stream-token key material (contract): base64url decoding to at least 32 bytes. */
export const STREAM_SECRET_MIN_BYTES = 32
/** A generated secret (spec Authentication 4): 64 random bytes, base64url. */
export const STREAM_SECRET_GENERATED_BYTES = 64

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/

/** The key bytes of a configured secret, or why it is rejected. */
export const decodeStreamSecret = (text: string): Either.Either<Uint8Array, string> => {
  const trimmed = text.trim()
  if (!BASE64URL.test(trimmed)) {
    return Either.left("must be base64url (letters, digits, '-' and '_')")
  }
  return Either.match(Encoding.decodeBase64Url(trimmed), {
    onLeft: () => Either.left("is not valid base64url"),
    onRight: (bytes) =>
      bytes.length >= STREAM_SECRET_MIN_BYTES
        ? Either.right(bytes)
        : Either.left(`decodes to ${bytes.length} bytes; at least ${STREAM_SECRET_MIN_BYTES} are required`),
  })
}

export const encodeStreamSecret = (bytes: Uint8Array): string => Encoding.encodeBase64Url(bytes)
