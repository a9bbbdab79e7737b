/* Internal helpers shared by the schema modules (schema.c, schema_format.c, schema_meta.c,
 * ecmare.c). Not part of the public interface. */
#ifndef FORGE_DATA_SCHEMA_INT_H
#define FORGE_DATA_SCHEMA_INT_H
#include <stdbool.h>
#include <stddef.h>
#include "base/buf.h"
#include "base/err.h"

/* Formats: forge_format_id returns an id >= 0 for a known format name, -1 for an unknown one
 * (unknown formats are annotations only). forge_format_check returns true when the <n> bytes
 * of <s> are valid for format <id>. */
int forge_format_id(const char *name);
bool forge_format_check(int id, const char *s, size_t n);

/* Translates an ECMA-262 pattern (<len> bytes of UTF-8) to PCRE2 syntax, appended to <out>, for
 * compilation with PCRE2_UTF | PCRE2_DOLLAR_ENDONLY (no UCP: \d \w \b stay ASCII as in
 * JavaScript). Returns 0, or FORGE_EINVAL with <err> saying what ECMA-262 rejects, or the
 * buffer's error. */
int forge_ecmare_translate(const char *pat, size_t len, struct forge_buf *out,
                           struct forge_err *err);

/* Compiles an ECMA-262 pattern. Returns a new pcre2_code (as void *, free with
 * forge_ecmare_free) or NULL with <err>. */
void *forge_ecmare_compile(const char *pat, size_t len, struct forge_err *err);
void forge_ecmare_free(void *code);
/* 1 when <code> matches somewhere in the <n> bytes of <s>, 0 when not, negative FORGE_E* when
 * a match limit was hit. */
int forge_ecmare_test(const void *code, const char *s, size_t n);
/* forge_ecmare_test on the NUL-terminated <s> (its length is found on the way when the
 * pattern runs on a small DFA). */
int forge_ecmare_test_str(const void *code, const char *s);
/* After a test of the calling thread returned FORGE_ELIMIT: true when the match ran past the
 * time limit of one match (--regex-timeout), false when it hit a PCRE2 limit. */
bool forge_ecmare_timed_out(void);
/* The calling thread's epoch: within one, a pattern whose PCRE2 match on a subject hit a limit
 * answers the same test (the same compiled pattern, subject address and length) with that
 * limit again at once, so that the full evaluation that explains a failed quick test does not
 * spend the limit a second time. Whoever tests patterns on instances that may be freed and
 * reallocated between two tests starts a new epoch (forge_schema_check does, for each
 * validation). */
extern _Thread_local unsigned long forge_ecmare_epoch;

/* For tests: whether <code> uses the fast matcher for simple patterns, and a match that
 * always goes through PCRE2 (same results as forge_ecmare_test). */
bool forge_ecmare_is_simple(const void *code);
/* For tests: which matcher <code> uses: 'l' literal, 'd' DFA, 'n' bit-parallel, 'p' PCRE2. */
int forge_ecmare_engine(const void *code);
/* For tests: the tables of a DFA that forge_ecmare_test runs on: 1 the pair table (two ASCII
 * characters a step, the first choice), 2 the byte table (when there is no pair table), or both;
 * 0 when there is no DFA. */
int forge_ecmare_dfa_tables(const void *code);
/* For tests: the bit-parallel matcher even when there is a DFA (-1 when the pattern has none). */
int forge_ecmare_test_nfa(const void *code, const char *s, size_t n);
int forge_ecmare_test_pcre2(const void *code, const char *s, size_t n);
/* For tests: how many PCRE2 matches the calling thread has run (a pattern that hits its match
 * or time limit on a subject is matched once in an epoch, not again to explain the failure). */
unsigned long forge_ecmare_test_pcre2_matches(void);

/* For tests, on the calling thread: forge_schema_test_path(1) makes forge_schema_check, when
 * it records errors, run the walk that records them from the root; 2 the verdict walk first
 * (then, on an invalid instance, in first-error mode its trail replayed, in all-errors mode the
 * recording walk); 0 the default (the verdict walk first unless the thread's last two such
 * checks found invalid instances, and in first-error mode whenever the trail pays); forge_schema_test_trail_misses
 * counts the failed validations whose trail could not be followed (the recording walk ran
 * again; none is expected). */
void forge_schema_test_path(int recording);
unsigned long forge_schema_test_trail_misses(void);
/* For tests: how many verdict walks (0) and recording walks from the root (1) the calling
 * thread's checks that wanted errors have run. */
unsigned long forge_schema_test_walks(int recording);
/* For tests, on the calling thread: true makes every error record its paths' segments, as if
 * no location had been made at compile time (errors must read the same either way). */
void forge_schema_test_segments(bool on);
/* For tests: how many errors the calling thread's checks recorded as the sites they went
 * through, the references followed and the items entered (their locations made of the sites'
 * and the keyword's, see ref_sites). */
unsigned long forge_schema_test_ref_records(void);

/* Built-in meta-schemas: the text of the document with URI <uri> (no fragment), or NULL. */
const char *forge_schema_meta(const char *uri);
#endif
