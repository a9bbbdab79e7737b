/* The registry of custom assertions: names bound to user functions (struct forge_callable), so
 * the eval engine calls Lua (or any other host) without knowing it. An eval case uses one with
 * "expect": {"custom": {"<name>": <expected>}}.
 *
 * The call contract: the callable receives {"run": RUN, "expected": EXPECTED} where RUN is
 * {response, tool_calls: [{name, arguments, result, error, round, turn_id}], trajectory,
 * latency_ms, cost_usd} and EXPECTED is the value written in the eval file. It returns
 *   - a boolean (pass or fail, score 1 or 0),
 *   - a number, the score in 0..1, passing at >= 0.5 (or at EXPECTED.threshold when EXPECTED is
 *     an object with a numeric threshold),
 *   - an object {pass, score, reason} (any member may be left out),
 *   - or an array [value, reason] (a host's multiple return values).
 * A call that fails (a script error, a broken limit) fails that assertion with the error's
 * message, and scoring goes on. */
#ifndef FORGE_EVAL_REGISTRY_H
#define FORGE_EVAL_REGISTRY_H
#include <stddef.h>
#include "base/err.h"
#include "data/callable.h"

struct forge_assertions;

/* Returns a new, empty registry (free with forge_assertions_free), or NULL when out of memory. */
struct forge_assertions *forge_assertions_new(void);

/* Registers <fn> (copied; fn->ctx stays the caller's unless <free_ctx> is given, in which case the
 * registry calls free_ctx(fn->ctx) when it is freed) under <name> (copied; non-empty). Fails with
 * FORGE_EINVAL when the name is empty or already registered, or FORGE_ENOMEM. On failure the
 * registry does not take ctx. */
int forge_assertions_add(struct forge_assertions *r, const char *name, const struct forge_callable *fn,
                         void (*free_ctx)(void *ctx), struct forge_err *err);

/* Borrows the callable registered as <name>, or NULL. */
const struct forge_callable *forge_assertions_find(const struct forge_assertions *r, const char *name);

/* The same with the signature of forge_assert_opts.custom (<r> is a struct forge_assertions *). */
const struct forge_callable *forge_assertions_lookup(void *r, const char *name);

/* Number of registered assertions, and the name of the i-th (in registration order). */
size_t forge_assertions_count(const struct forge_assertions *r);
const char *forge_assertions_name(const struct forge_assertions *r, size_t i);

void forge_assertions_free(struct forge_assertions *r);
#endif
