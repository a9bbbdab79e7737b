/* forge.check: tool-use validation for scripts (runtime/score/tooluse.h), with upstream's names:
 *   validate_tool_call(call, schema?, options?)          -> ValidationResult
 *   validate_turn(turn, schemas?, options?, trajectory?) -> ValidationResult
 *   validate_trajectory(trajectory, schemas?, options?)  -> { ValidationResult... }
 *   validate_schema(call, schema)                        -> SchemaValidationResult
 *   create_tool_schema(name, json_schema, description?)  -> ToolSchema
 *   verify_result(call, turn, trajectory?, options?)     -> ResultVerificationResult
 *   verify_turn_results(turn, trajectory?, options?)     -> { ResultVerificationResult... }
 *   summarize_result_verification(trajectory, options?)  -> summary
 *   check(trajectory, schemas?, options?)                -> {validation, results, summary}
 *   import(doc, format?)                                 -> trajectory (forge format)
 *   tools(doc)                                           -> { name = ToolSchema }
 * Options use upstream's keys (allowUnknownTools, validateSchemas, checkResultUsage,
 * detectHallucination, strict, checkUsage, checkContradictions, hallucinationThreshold) plus
 * `deep`. Misuse (a value JSON cannot hold) raises; import/tools return nil, message on bad
 * input. */
#include "lua/bind.h"
#include "lua/vm.h"
#include "score/tooldefs.h"
#include "score/tooluse.h"
#include "score/trajectory.h"

#include <cjson/cJSON.h>

/* Keeps every converted argument alive in boxes on the stack until the result is pushed, held
 * against the memory cap together. */
static cJSON *keep(lua_State *L, int idx, const char *what)
{
    return forge_lua_keep_json(L, idx, what);
}

/* In deep mode, compiles the tools' JSON Schemas for the schema_violation check (boxed on the
 * stack so a raise frees them). */
static void deep_schemas(lua_State *L, struct forge_tooluse_opts *o, const cJSON *schemas)
{
    if (!o->deep || !cJSON_IsObject(schemas))
        return;
    struct forge_err err = {0};
    struct forge_vm *vm = forge_vm_of(L);
    forge_vm_work_begin(vm, 0);
    struct forge_tooluse_schemas *s = forge_tooluse_schemas_compile(schemas, &err);
    if (forge_vm_work_end(vm, NULL)) {
        forge_tooluse_schemas_free(s);
        luaL_error(L, "forge.check: %s", forge_vm_limit_message(vm));
    }
    if (!s)
        luaL_error(L, "forge.check: %s", err.msg);
    forge_lua_box(L, s, (void (*)(void *))forge_tooluse_schemas_free);
    o->schema_check = forge_tooluse_schemas_check;
    o->schema_ctx = s;
}

/* The C work of a check (its result, and all it made on the way) is done for the script: it runs
 * within what the memory cap leaves, from work() (called just before it: nothing between may
 * raise) to push_result or work_done. */
static void work(lua_State *L)
{
    forge_vm_work_begin(forge_vm_of(L), 0);
}

/* Ends the work whose result is <r>; raises the memory limit (<r> freed) when the cap refused
 * part of it. */
static void work_done(lua_State *L, cJSON *r)
{
    struct forge_vm *vm = forge_vm_of(L);
    if (forge_vm_work_end(vm, NULL)) {
        cJSON_Delete(r);
        luaL_error(L, "forge.check: %s", forge_vm_limit_message(vm));
    }
}

static int push_result(lua_State *L, cJSON *r, const struct forge_err *err)
{
    work_done(L, r);
    if (!r)
        return luaL_error(L, "forge.check: %s", err->msg);
    forge_lua_box(L, r, (void (*)(void *))cJSON_Delete);
    if (forge_lua_charge_tree(L, r)) /* a result is C memory made for the script */
        return luaL_error(L, "forge.check: %s", forge_vm_limit_message(forge_vm_of(L)));
    forge_lua_push_json(L, r);
    forge_lua_unbox_range(L, 1, lua_gettop(L) - 1); /* the kept arguments and r */
    return 1;
}

static int l_validate_tool_call(lua_State *L)
{
    lua_settop(L, 3); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *call = keep(L, 1, "call");
    cJSON *schema = keep(L, 2, "schema");
    cJSON *opts = keep(L, 3, "options");
    struct forge_tooluse_opts o;
    forge_tooluse_opts_json(opts, &o);
    if (o.deep && cJSON_IsObject(schema) && cJSON_IsObject(call) &&
        cJSON_IsString(cJSON_GetObjectItemCaseSensitive(call, "name"))) {
        cJSON *map = cJSON_CreateObject();
        forge_lua_box(L, map, (void (*)(void *))cJSON_Delete);
        if (!map || !cJSON_AddItemReferenceToObject(
                        map, cJSON_GetObjectItemCaseSensitive(call, "name")->valuestring, schema))
            return luaL_error(L, "forge.check: out of memory");
        deep_schemas(L, &o, map);
    }
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_validate_tool_call(call, cJSON_IsNull(schema) ? NULL : schema, &o, &err), &err);
}

static int l_validate_turn(lua_State *L)
{
    lua_settop(L, 4); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *turn = keep(L, 1, "turn");
    cJSON *schemas = keep(L, 2, "schemas");
    cJSON *opts = keep(L, 3, "options");
    cJSON *traj = keep(L, 4, "trajectory");
    struct forge_tooluse_opts o;
    forge_tooluse_opts_json(opts, &o);
    deep_schemas(L, &o, schemas);
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_validate_turn(turn, schemas, traj, &o, &err), &err);
}

static int l_validate_trajectory(lua_State *L)
{
    lua_settop(L, 3); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *traj = keep(L, 1, "trajectory");
    cJSON *schemas = keep(L, 2, "schemas");
    cJSON *opts = keep(L, 3, "options");
    struct forge_tooluse_opts o;
    forge_tooluse_opts_json(opts, &o);
    deep_schemas(L, &o, schemas);
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_validate_trajectory(traj, schemas, &o, &err), &err);
}

static int l_validate_schema(lua_State *L)
{
    lua_settop(L, 2); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *call = keep(L, 1, "call");
    cJSON *schema = keep(L, 2, "schema");
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_validate_schema(call, schema, &err), &err);
}

static int l_create_tool_schema(lua_State *L)
{
    lua_settop(L, 3); /* converted arguments are boxed above the parameters */
    const char *name = forge_lua_checkcstr(L, 1);
    cJSON *js = keep(L, 2, "json_schema");
    cJSON *desc = keep(L, 3, "description");
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_create_tool_schema(name, js, desc, &err), &err);
}

static int l_verify_result(lua_State *L)
{
    lua_settop(L, 4); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    luaL_checkany(L, 2);
    cJSON *call = keep(L, 1, "call");
    cJSON *turn = keep(L, 2, "turn");
    cJSON *traj = keep(L, 3, "trajectory");
    cJSON *opts = keep(L, 4, "options");
    struct forge_verify_opts o;
    forge_verify_opts_json(opts, &o);
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_verify_result(call, turn, cJSON_IsNull(traj) ? NULL : traj, &o, &err), &err);
}

static int l_verify_turn_results(lua_State *L)
{
    lua_settop(L, 3); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *turn = keep(L, 1, "turn");
    cJSON *traj = keep(L, 2, "trajectory");
    cJSON *opts = keep(L, 3, "options");
    struct forge_verify_opts o;
    forge_verify_opts_json(opts, &o);
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_verify_turn_results(turn, cJSON_IsNull(traj) ? NULL : traj, &o, &err), &err);
}

static int l_summarize(lua_State *L)
{
    lua_settop(L, 2); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *traj = keep(L, 1, "trajectory");
    cJSON *opts = keep(L, 2, "options");
    struct forge_verify_opts o;
    forge_verify_opts_json(opts, &o);
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_summarize(traj, &o, &err), &err);
}

static int l_check(lua_State *L)
{
    lua_settop(L, 3); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *traj = keep(L, 1, "trajectory");
    cJSON *schemas = keep(L, 2, "schemas");
    cJSON *opts = keep(L, 3, "options");
    struct forge_tooluse_opts vo;
    struct forge_verify_opts ro;
    forge_tooluse_opts_json(opts, &vo);
    forge_verify_opts_json(opts, &ro);
    deep_schemas(L, &vo, schemas);
    struct forge_err err = {0};
    work(L);
    return push_result(L, forge_tooluse_check(traj, schemas, &vo, &ro, &err), &err);
}

static int l_import(lua_State *L)
{
    lua_settop(L, 2); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *doc = keep(L, 1, "document");
    const char *fmt = lua_isnoneornil(L, 2) ? NULL : forge_lua_checkcstr(L, 2);
    struct forge_err err = {0};
    work(L);
    cJSON *t = forge_trajectory_import(doc, fmt, &err);
    if (!t) {
        work_done(L, NULL);
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    return push_result(L, t, &err);
}

static int l_tools(lua_State *L)
{
    lua_settop(L, 1); /* converted arguments are boxed above the parameters */
    luaL_checkany(L, 1);
    cJSON *doc = keep(L, 1, "tools");
    struct forge_err err = {0};
    work(L);
    cJSON *t = forge_tooldefs_import(doc, &err);
    if (!t) {
        work_done(L, NULL);
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    return push_result(L, t, &err);
}

int forge_luaopen_check(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"validate_tool_call", l_validate_tool_call},
        {"validate_turn", l_validate_turn},
        {"validate_trajectory", l_validate_trajectory},
        {"validate_schema", l_validate_schema},
        {"create_tool_schema", l_create_tool_schema},
        {"verify_result", l_verify_result},
        {"verify_turn_results", l_verify_turn_results},
        {"summarize_result_verification", l_summarize},
        {"check", l_check},
        {"import", l_import},
        {"tools", l_tools},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
