/* The offline scripted model: deterministic answers from rules written in Lua (lua/forge/
 * scripted.lua). The rules engine is a callable taking the normalized request and returning the
 * normalized response, so this model knows nothing of Lua. */
#ifndef FORGE_MODEL_SCRIPTED_H
#define FORGE_MODEL_SCRIPTED_H
#include "data/callable.h"
#include "model/model.h"

/* Returns a new model answering with <respond> (taken; <free_ctx> frees respond.ctx, may be
 * NULL). <name> is reported as the model name (for example the rules file). */
struct forge_model *forge_scripted_new(struct forge_callable respond, void (*free_ctx)(void *),
                                       const char *name, struct forge_err *err);

/* Gives the scripted model <m> its rules as data (<plan> taken), so that it answers what they
 * decide without calling <respond>; a rule or step marked {"lua": true} (a function, or
 * anything this engine does not evaluate exactly as lua/forge/scripted.lua does) sends the
 * request to <respond>, which answers it whole. <plan> is a list of rules:
 *   {"lua": true}
 *   {"case": [ids...]?, "match": regex?, "when": true?, "steps": [step or null, ...]}
 * and a step is {"lua": true}, {"reply": text}, or {"calls": [{"name", "arguments": {...}}],
 * "reply": text?}; strings in replies and arguments are templates ($1..$9, {{path}}). */
int forge_scripted_set_plan(struct forge_model *m, cJSON *plan, struct forge_err *err);
#endif
