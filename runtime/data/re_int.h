/* PCRE2 under forge's time limit, shared by the regex modules (re.c, ecmare.c). Not part of the
 * public interface.
 *
 * PCRE2's match limit counts the work of one start position: a pattern such as \w*\d costs the
 * limit's worth at each of n positions, n times the limit in all. So every pattern is compiled
 * with a callout in front, (?C255)PATTERN, which each attempt passes first, and the callout ends
 * the match once it has run past forge_re_timeout_ms(). A single attempt stays bounded by the
 * match limit. */
#ifndef FORGE_DATA_RE_INT_H
#define FORGE_DATA_RE_INT_H
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdbool.h>
#include "data/re.h"

/* Compiles <pat> (<len> bytes) with <opts> and <cctx> (NULL: defaults), with the callout of
 * the time check in front. The temporary text is allocated from <mem> (NULL: forge_malloc). Returns NULL with
 * *ec and *off saying what is wrong with <pat> itself (PCRE2_ERROR_NOMEMORY when an allocator
 * refused). */
pcre2_code *forge_re_pcre2_compile(const char *pat, size_t len, uint32_t opts,
                                   pcre2_compile_context *cctx, const struct forge_re_mem *mem,
                                   int *ec, PCRE2_SIZE *off);

/* pcre2_match (or pcre2_jit_match with <jit>) under the time limit, with <mctx>'s callout set
 * for the call. Returns PCRE2's result; PCRE2_ERROR_CALLOUT is the time limit. */
int forge_re_pcre2_match(const pcre2_code *code, bool jit, const char *s, size_t n, size_t start,
                         uint32_t opts, pcre2_match_data *md, pcre2_match_context *mctx);
#endif
