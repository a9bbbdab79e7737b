/* Token prices per model, for the cost of a model call. A small built-in table covers common
 * models; users override or extend it with a JSON file (--prices FILE):
 *   { "openai:gpt-4o-mini": {"input": 0.15, "output": 0.60},    USD per million tokens
 *     "my-finetune": {"input": 1, "output": 2} }
 * A key is "provider:model" or a bare model name; it matches the exact model name and any
 * dated variant of it ("claude-sonnet-4-5" matches "claude-sonnet-4-5-20250929"). User entries
 * win over built-in ones; the longest matching key wins among each. */
#ifndef FORGE_MODEL_PRICES_H
#define FORGE_MODEL_PRICES_H
#include <stdbool.h>
#include "base/err.h"

struct forge_prices;

/* Returns a new table: the built-in prices plus those in the file at <path> (NULL: built-in
 * only). Fails with the file's errors, or FORGE_EINVAL naming the key whose entry is not
 * {"input": number >= 0, "output": number >= 0}. Free with forge_prices_free. */
int forge_prices_load(const char *path, struct forge_prices **out, struct forge_err *err);
void forge_prices_free(struct forge_prices *p);

/* Cost in USD of <in> input and <out> output tokens on <provider>:<model>; 0 with *known =
 * false when no entry matches (known may be NULL). <p> may be NULL (built-in table). */
double forge_prices_cost(const struct forge_prices *p, const char *provider, const char *model,
                         double in, double out, bool *known);
#endif
