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
#endif
