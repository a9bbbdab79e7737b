/* What a Lua binding module needs from the host: the JSON <-> Lua conversion and the module
 * registration convention. Only runtime/lua/ includes lua.h.
 *
 * A binding lives in runtime/lua/l_<module>.c and exports
 *     int forge_luaopen_<module>(lua_State *L);
 * which pushes the module table (luaL_newlib) and returns 1. runtime/lua/modules.c lists every
 * module once; the sandbox exposes it as forge.<module> (and require "forge.<module>"). */
#ifndef FORGE_LUA_BIND_H
#define FORGE_LUA_BIND_H
#include <lua.h>
#include <lauxlib.h>
#include <cjson/cJSON.h>
#include "base/err.h"

/* Pushes <v> (borrowed) as a Lua value: objects and arrays become tables tagged so that an
 * empty array and an empty object stay apart on the way back, null becomes forge.json.null,
 * numbers become integers when integral and within 2^53, else floats. May raise (memory). */
void forge_lua_push_json(lua_State *L, const cJSON *v);

/* Pushes the JSON scalar <v> (null, boolean, number, string) as push_json would. */
void forge_lua_push_scalar(lua_State *L, const cJSON *v);

/* The same without recording object key order (objects then encode with sorted keys): cheaper,
 * for values C hands to user functions (tool arguments, requests to scripted rules). */
void forge_lua_push_json_unordered(lua_State *L, const cJSON *v);

/* Converts the Lua value at <idx> to a new cJSON tree. Tables with keys 1..n (or tagged as
 * arrays) become arrays; other tables objects (keys in the order the table was tagged with when
 * it came from JSON, else sorted); forge.json.null becomes null. Returns NULL with <err> set on
 * a value JSON cannot hold (function, cycle, NaN, mixed keys), naming the path. Never raises. */
cJSON *forge_lua_to_json(lua_State *L, int idx, struct forge_err *err);

/* Charges the C tree that parsing the JSON text <s> (<len> bytes) would build against the VM's
 * memory cap (see forge_vm_charge). Returns 0, or FORGE_ELIMIT with the limit broken: the caller
 * raises forge_vm_limit_message. */
int forge_lua_charge_json(lua_State *L, const char *s, size_t len);
/* The same for YAML text: the values it expands to (aliases included, counted without building
 * them) are charged before any tree is made. A text that does not parse charges its length
 * only (the parse then fails). */
int forge_lua_charge_yaml(lua_State *L, const char *s, size_t len);

/* Charges the C tree <v> (about to be handed to a script, then freed) against the VM's memory cap
 * (see forge_vm_charge). Returns 0, or FORGE_ELIMIT with the limit broken. */
int forge_lua_charge_tree(lua_State *L, const cJSON *v);
/* The bytes forge_lua_charge_tree charges for <v>. */
size_t forge_lua_tree_cost(const cJSON *v);

/* The string argument <idx> for C that reads it up to its first NUL (names, formats, paths):
 * raises when it holds a NUL byte, so no shortened name is ever looked up. */
const char *forge_lua_checkcstr(lua_State *L, int idx);

/* Read-only views: C JSON trees handed to a script for one call without converting them. A view
 * of an object or array is a table whose metatable reads the tree on demand (__index, __len,
 * __pairs; writes raise); scalars are pushed as values. The caller (a custom assertion, once per
 * case) keeps the view state as values of its own, typically upvalues of its C closure:
 * forge_lua_views_push_state pushes the four values (the nodes table, the proxies table, the
 * metatable, the argument slots; made on first use; may raise), forge_lua_view_slots_at gives
 * the slots' address (it stays valid while the slots value lives);
 * forge_lua_push_arg_view pushes <v> (borrowed: it must live until the scope ends) as a fresh
 * view known by argument slot <i> (0 to FORGE_LUA_ARG_VIEWS - 1; for the arguments of a call;
 * may raise (memory); needs 2 free stack slots); forge_lua_views_end_at ends the scope, argument
 * slots included, after which every view of it raises when used (never raises; needs 3 free
 * stack slots). forge_lua_views_end does the same with the state found in the registry. */
#define FORGE_LUA_ARG_VIEWS 2
struct forge_lua_view_slots;
void forge_lua_views_push_state(lua_State *L);
struct forge_lua_view_slots *forge_lua_view_slots_at(lua_State *L, int idx);
void forge_lua_push_arg_view(lua_State *L, const cJSON *v, int mt, struct forge_lua_view_slots *sl, int i);
void forge_lua_views_end_at(lua_State *L, int nodes, int proxies, struct forge_lua_view_slots *sl);
void forge_lua_views_end(lua_State *L);
/* The tree behind the view at <idx> (borrowed), or NULL when it is not a live view. */
const cJSON *forge_lua_view_node(lua_State *L, int idx);

/* Like forge_lua_to_json but raises a Lua error ("<what>: <reason>") on failure. */
cJSON *forge_lua_check_json(lua_State *L, int idx, const char *what);
/* forge_lua_check_json for an argument a binding keeps while it works (nil or none: NULL): the
 * tree is boxed on the stack (freed with it) and its bytes held against the memory cap until
 * then, so that several converted arguments together stay within the cap (each checked alone
 * could take the whole room). Raises on a conversion error or the memory limit. */
cJSON *forge_lua_keep_json(lua_State *L, int idx, const char *what);
/* Frees now what the boxes at stack slots <from>..<to> hold (other values are left alone), as
 * a binding does once its result is pushed: kept arguments then hold nothing until the
 * collector comes. */
void forge_lua_unbox_range(lua_State *L, int from, int to);
/* Puts <p> under a userdata on the stack that frees it with <fr> when collected, so a binding
 * can hold a C allocation across calls that may raise. Returns the box. Raises when the box
 * cannot be made (memory), after freeing <p>. */
void *forge_lua_box(lua_State *L, void *p, void (*fr)(void *));
/* Frees the box's pointer now (idempotent). */
void forge_lua_unbox(lua_State *L, int idx);
#endif
