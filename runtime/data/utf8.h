/* UTF-8 validation and decoding (RFC 3629: no overlong forms, no surrogates, nothing above
 * U+10FFFF). Inputs are checked with forge_utf8_check; writers that must emit valid text
 * (JSON, XML) decode with forge_utf8_decode and write U+FFFD for each invalid byte. */
#ifndef FORGE_DATA_UTF8_H
#define FORGE_DATA_UTF8_H
#include <stdbool.h>
#include <stddef.h>

/* The replacement character U+FFFD, UTF-8 encoded. */
#define FORGE_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* Returns the offset of the first byte of <s> (<n> bytes) that is not part of a valid UTF-8
 * sequence, or of the first NUL byte when <no_nul>; <n> when there is none. */
size_t forge_utf8_check(const char *s, size_t n, bool no_nul);

/* Decodes the code point at <s> (<n> > 0 bytes): returns its length (1 to 4) and sets *cp, or
 * returns 0 when the bytes there are not valid UTF-8. */
int forge_utf8_decode(const char *s, size_t n, unsigned *cp);

/* True for the 66 Unicode noncharacters (U+FDD0..U+FDEF and U+nFFFE, U+nFFFF). */
bool forge_utf8_noncharacter(unsigned cp);
#endif
