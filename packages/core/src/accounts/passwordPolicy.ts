/**
 * Passwords nobody should be allowed to pick (issue 29 item 5; NIST SP 800-63B §5.1.1.2: refuse values known to be
 * commonly used or compromised): blank ones, one character repeated, and the most common passwords of 8 characters
 * or more in public breach lists. Compared without case and surrounding spaces. The length rule (8–256) is the
 * contract's and is checked apart.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  "password",
  "password1",
  "password12",
  "password123",
  "passw0rd",
  "p@ssw0rd",
  "p@ssword",
  "12345678",
  "123456789",
  "1234567890",
  "0123456789",
  "987654321",
  "87654321",
  "11223344",
  "12341234",
  "12121212",
  "123123123",
  "qwertyui",
  "qwertyuiop",
  "qwerty123",
  "qwerty12",
  "1q2w3e4r",
  "1qaz2wsx",
  "zaq12wsx",
  "asdfghjkl",
  "asdfasdf",
  "abcd1234",
  "abc12345",
  "abcdefgh",
  "iloveyou",
  "iloveyou1",
  "sunshine",
  "princess",
  "football",
  "baseball",
  "basketball",
  "superman",
  "batman123",
  "starwars",
  "trustno1",
  "whatever",
  "letmein1",
  "letmein123",
  "welcome1",
  "welcome123",
  "admin123",
  "administrator",
  "changeme",
  "changeme123",
  "computer",
  "internet",
  "michelle",
  "jennifer",
  "jordan23",
  "liverpool",
  "chocolate",
  "butterfly",
  "mustang1",
  "dragon123",
  "master123",
  "monkey123",
  "shadow123",
  "killer123",
  "secret123",
  "freedom1",
  "letmeinnow",
  "music123",
  "tonearm1",
  "tonearm123",
])

/** Why a password is refused beyond its length, or undefined when it may be used. */
export const weakPasswordReason = (password: string): string | undefined => {
  const folded = password.trim().toLowerCase()
  if (folded === "") return "password must not be blank"
  if ([...folded].every((char) => char === folded[0])) return "password must not be one character repeated"
  if (COMMON_PASSWORDS.has(folded)) return "password is one of the most common passwords: choose another"
  return undefined
}
