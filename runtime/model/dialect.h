/* Provider dialects: each maps the normalized chat request (model.h) to its provider's wire
 * body and the provider's answer back to the normalized response. Dialects do no I/O; the
 * provider layer (provider.h) sends the bodies. Shared helpers for all dialects live here too
 * (runtime/model/wire.c). */
#ifndef FORGE_MODEL_DIALECT_H
#define FORGE_MODEL_DIALECT_H
#include <stddef.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "base/buf.h"
#include "base/err.h"

/* Where in a streamed body the first text and the first tool call arrived. */
struct forge_stream_marks {
    size_t first_token, first_call;
};

/* What an answer served by `forge serve` says of itself beside the normalized response. */
struct forge_answer_info {
    const char *model;   /* the model name the client asked for */
    const char *id;      /* this answer's id, unique in the server's life ("chatcmpl-...") */
    long long created;   /* Unix seconds */
};

struct forge_dialect {
    const char *name; /* provider name as in a model spec: "openai", "anthropic", ... */
    /* Builds the wire body for <req> (borrowed, already checked by forge_wire_check) and the
     * model name <model>. On success *body is a new tree. FORGE_EINVAL when the request
     * cannot be expressed in this dialect (the message says why). */
    int (*build)(const cJSON *req, const char *model, cJSON **body, struct forge_err *err);
    /* Parses a successful wire answer <body> into a new normalized response *resp with
     * "message", "finish_reason" and "usage". <req> is the request it answers (borrowed).
     * FORGE_ENET when the body does not have the provider's documented shape. */
    int (*parse)(const cJSON *req, const cJSON *body, cJSON **resp, struct forge_err *err);
    /* Writes the provider's own error message from an error answer <body> (may be NULL when
     * the body is not JSON) into <out> (n bytes); leaves "" when it finds none. */
    void (*error_message)(const cJSON *body, char *out, size_t n);

    /* The server side (`forge serve`): the same wire read in the other direction. */

    /* Reads a client's request <body> (borrowed) into a new normalized request *req (model.h;
     * it then passes forge_wire_check) and sets *stream when the body asks for a streamed
     * answer (Gemini asks by URL: the caller decides). Keys the dialect does not map but the
     * provider documents (temperature, max_tokens, ...) go to "params" as they are. Every tool
     * result of the history becomes a tool message; tool calls without ids get
     * forge_wire_call_id's. FORGE_EINVAL with a message naming the path ("messages[2].content:
     * must be a string or an array of text parts") when the body is not a valid request. */
    int (*accept)(const cJSON *body, cJSON **req, int *stream, struct forge_err *err);
    /* Writes the provider's non-streamed answer to <req> for the normalized response <resp>
     * (both borrowed) as a new body *out, with usage and finish reason in the provider's
     * vocabulary. Returns 0 or FORGE_ENOMEM. */
    int (*answer)(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info,
                  cJSON **out, struct forge_err *err);
    /* Appends to <out> the same answer as the provider streams it: its SSE events ("event:"
     * and "data:" lines as the provider names them, a blank line after each) or NDJSON lines,
     * tool call arguments split over several deltas, and the terminator it sends. Returns 0 or
     * FORGE_ENOMEM. */
    int (*stream)(const cJSON *req, const cJSON *resp, const struct forge_answer_info *info,
                  struct forge_buf *out, struct forge_err *err);
    /* A new error body in the provider's shape for HTTP <status> and <message>; NULL when out
     * of memory. */
    cJSON *(*error_body)(int status, const char *message);
    /* The Content-Type of streamed answers ("text/event-stream", "application/x-ndjson"). */
    const char *stream_type;

    /* The client side of streamed answers. */

    /* Nonzero when <text> (a streamed body, whole or cut) ends as the provider ends a stream:
     * its terminator, or an error event. */
    int (*stream_complete)(const char *text, size_t len);
    /* Assembles the streamed body <text> into the body the provider would have answered without
     * streaming (*body, new), which parse() then reads, so a streamed answer normalizes exactly
     * as a whole one. Sets the offsets in <text> of the first text token and of the first tool
     * call (SIZE_MAX when none). FORGE_ENET names what is wrong: an error event (with the
     * provider's message), an event that is not JSON, a tool call's arguments that do not add up
     * to JSON, a missing terminator. */
    int (*assemble)(const char *text, size_t len, cJSON **body, struct forge_stream_marks *marks,
                    struct forge_err *err);
};

extern const struct forge_dialect forge_dialect_openai;
extern const struct forge_dialect forge_dialect_openai_responses;
extern const struct forge_dialect forge_dialect_anthropic;
extern const struct forge_dialect forge_dialect_gemini;
extern const struct forge_dialect forge_dialect_ollama;

/* The dialect for a provider name, or NULL. "openai-compatible" is "openai". */
const struct forge_dialect *forge_dialect_find(const char *provider);

/* Checks that <req> has the normalized shape of model.h: messages with known roles, tool
 * calls with "id", "name" and object "arguments", exactly one tool message for every call
 * (after it) and no tool message without a call, tools with names, a known tool_choice whose
 * named tool is among the tools. FORGE_EINVAL names the offending path ("messages[2]..."). */
int forge_wire_check(const cJSON *req, struct forge_err *err);

/* The tool message answering <call_id> in <req>'s messages (borrowed), or NULL. */
const cJSON *forge_wire_result(const cJSON *req, const char *call_id);
/* The same, in the messages array <msgs>. */
const cJSON *forge_wire_result_in(const cJSON *msgs, const char *call_id);

/* Returns the compact JSON text of <args> (new string, free with forge_free) or NULL when out
 * of memory. */
char *forge_wire_args_text(const cJSON *args);

/* Sets "arguments" on <call> from the JSON text <text> (NULL or "" mean {}). Text that is not
 * a JSON object leaves {} and adds "arguments_text" (the raw text) and "arguments_error" (why),
 * so the agent loop can report the malformed call to the model. Returns 0 or FORGE_ENOMEM. */
int forge_wire_set_args_text(cJSON *call, const char *text);

/* The number <v> as an int when it is one's range (fractions cut), else -1: an index read
 * from outside input. */
int forge_wire_index(double v);

/* Adds <item> to <obj> under <key> (replacing a member of that name), taking ownership even on
 * failure. Returns <item>, or NULL when <item> was NULL or memory ran out (then it is freed). */
cJSON *forge_wire_put(cJSON *obj, const char *key, cJSON *item);

/* A tool result's text for dialects whose results carry no error flag: the content, prefixed
 * with "Error: " when the result is an error. Returns a new string, NULL when out of memory. */
char *forge_wire_result_text(const cJSON *result);

/* Borrows the <key> array ("content", "parts") of the last message of <msgs> when that message
 * has <role>, else of a new {"role": role, key: []} appended to <msgs>: consecutive blocks of one
 * role share a message, as Anthropic and Gemini require. NULL when out of memory. */
cJSON *forge_wire_turn(cJSON *msgs, const char *role, const char *key);

/* A new tool call {"id", "name", "arguments": {}}; NULL when out of memory. */
cJSON *forge_wire_call_new(const char *id, const char *name);

/* For providers that give calls no id: writes "call_<n>" into <out>, n counting every tool
 * call already in <req>'s history plus <index> + 1, so ids are unique within a conversation and
 * the same for the same history. */
void forge_wire_call_id(const cJSON *req, int index, char *out, size_t n);

/* A new normalized response with an assistant message holding <content> (NULL: JSON null) and
 * <calls> (taken; NULL: no "tool_calls"), <finish_reason>, and usage tokens. NULL when out of
 * memory. */
cJSON *forge_wire_response_new(const char *content, cJSON *calls, const char *finish_reason,
                               double input_tokens, double output_tokens);

/* Adds to <obj> a copy of every member of <params> (borrowed, may be NULL) whose name is not
 * in the NULL-terminated <skip>. Returns 0 or FORGE_ENOMEM. */
int forge_wire_copy_params(cJSON *obj, const cJSON *params, const char *const *skip);

/* Tool result content as a JSON value for dialects that want objects: the parsed JSON when
 * <text> is JSON, else a string. New tree or NULL when out of memory. */
cJSON *forge_wire_result_value(const char *text);

/* Copies the string at <key> of <obj> (or of the object at "error") into <out>; helper for
 * error_message. */
void forge_wire_error_text(const cJSON *v, char *out, size_t n);

/* OpenAI's error body {"error": {"message", "type", "param", "code"}} for <status> (chat
 * completions and responses share it); NULL when out of memory. */
cJSON *forge_wire_openai_error(int status, const char *message);

/* How many bytes of text or argument JSON one streamed delta carries at most. */
#define FORGE_WIRE_PIECE 16

/* The length of the next piece of <s> (<n> bytes left): at most <max> bytes, never ending inside
 * a UTF-8 sequence (at least one whole character). */
size_t forge_wire_piece(const char *s, size_t n, size_t max);

/* Appends one server-sent event to <b>: "event: <event>\n" when <event> is not NULL, then
 * "data: <compact JSON of v>\n\n". Returns 0, FORGE_ENOMEM or FORGE_ELIMIT. */
int forge_wire_sse(struct forge_buf *b, const char *event, const cJSON *v);

/* Strings a stream builds piece by piece (text, arguments): kept in buffers, so assembling n
 * pieces costs O(n), and written into their objects at the end. */
struct forge_wire_acc {
    struct forge_wire_acc_entry {
        cJSON *obj;
        char key[32];
        struct forge_buf b;
    } *v;
    size_t n, cap;
};
/* Appends <piece> to the string <obj>.<key> (its current value, if any, comes first). 0 or
 * FORGE_ENOMEM. */
int forge_wire_acc_add(struct forge_wire_acc *a, cJSON *obj, const char *key, const char *piece);
/* The text gathered so far for <obj>.<key>, or NULL when nothing was added. */
/* The buffer gathering <obj>.<key> (made on first use, starting with the string's current
 * value), for appending to directly; NULL when out of memory. */
struct forge_buf *forge_wire_acc_buf(struct forge_wire_acc *a, cJSON *obj, const char *key);
const char *forge_wire_acc_get(const struct forge_wire_acc *a, const cJSON *obj, const char *key);
/* Writes every gathered string into its object. 0 or FORGE_ENOMEM. */
int forge_wire_acc_flush(struct forge_wire_acc *a);
void forge_wire_acc_free(struct forge_wire_acc *a);

/* Whether assemble reads the hot events of a stream (text and argument deltas) with the in-place
 * scanner of data/jscan.h, falling back to cJSON for every other event (1, the default), or
 * reads every event with cJSON (0). Both give the same answers and errors (fuzz_stream checks
 * it); the switch exists for that test and the benchmark. Set it before threads start. */
void forge_wire_set_fast(int on);
int forge_wire_fast(void);

/* The last hot event of a stream, as the text before its one string of interest (the opening
 * quote included) and the text after it (the closing quote included), both borrowed from the
 * stream's text. An event with the same text around another valid string is the same event with
 * another piece: it needs no other reading (a string for a string leaves the JSON valid, and
 * every other value as it was). */
struct forge_wire_tmpl {
    const char *pre, *suf;
    size_t npre, nsuf;
    size_t nfix; /* how much of suf comes before its first digit */
    char event[64];    /* for forge_sse_tmpl_*: the event's name, */
    size_t dpre, dsuf; /* where its data starts in pre, and how much of suf is data */
};
struct forge_jstr;
/* Remembers <data> (<len> bytes, in the stream's text) as the template, <v> being its piece. */
void forge_wire_tmpl_set(struct forge_wire_tmpl *t, const char *data, size_t len, const struct forge_jstr *v);
/* 1 when <data> is the template's event around another valid string, then in <v>; else 0. */
int forge_wire_tmpl_match(const struct forge_wire_tmpl *t, const char *data, size_t len, struct forge_jstr *v);
/* The same, but the text after the string may also differ from the template's in its runs of
 * digits (each replaced by "0" or 1 to 15 digits not starting with 0: valid wherever a digit run
 * is, in a string, a number's integer part, fraction or exponent). For events none of whose
 * values after the string are read, such as a sequence number. */
int forge_wire_tmpl_match_digits(const struct forge_wire_tmpl *t, const char *data, size_t len, struct forge_jstr *v);

/* Server-sent events of a streamed body, one at a time (the framing of the WHATWG spec: lines
 * end with \n, \r\n or \r; "event:" and "data:" fields, several data lines joined with \n;
 * comments and other fields skipped; an event without its closing blank line at the end of the
 * text is not dispatched). */
struct forge_sse {
    const char *base, *p, *end;
    const char *data;       /* the current event's data, NULL when it has none: in the text itself
                               when it is one line (not NUL-terminated), else joined in <buf> */
    size_t len;             /* its length */
    struct forge_buf buf;   /* owned; free with forge_sse_free */
    char event[64];         /* the current event's name, "" when it has none */
    size_t offset;          /* where the current event starts in the text */
};
/* Nonzero when the current event's data is exactly the string literal <s>. */
#define forge_sse_data_is(it, s) \
    ((it)->data && (it)->len == sizeof(s) - 1 && !memcmp((it)->data, s, sizeof(s) - 1))
void forge_sse_init(struct forge_sse *it, const char *text, size_t len);
/* Moves to the next event: 1, or 0 at the end; FORGE_ENOMEM. */
int forge_sse_next(struct forge_sse *it);
void forge_sse_free(struct forge_sse *it);
/* Remembers the current event (its data in place in the text, <v> a string in it) as the
 * template <t>: its whole text, framing included, before and after <v>. */
void forge_sse_tmpl_set(const struct forge_sse *it, struct forge_wire_tmpl *t, const struct forge_jstr *v);
/* When the text at the current position is the template's event with another string (valid,
 * without line breaks) in the place of its own, moves past that event as forge_sse_next would
 * (data, len, event, offset set) and returns 1 with the string in <v>; else returns 0 and moves
 * nothing. Such an event needs no other reading: its framing and its other values are the
 * template's. */
int forge_sse_tmpl_next(struct forge_sse *it, const struct forge_wire_tmpl *t, struct forge_jstr *v);
/* Reads only the last complete event of <text> (for checking how a stream ended without reading
 * it all): 1 with the event in <it>, 0 when there is none, FORGE_ENOMEM. Free <it> after. */
int forge_sse_last(struct forge_sse *it, const char *text, size_t len);
#endif
