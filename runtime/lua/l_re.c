/* forge.re: PCRE2 regular expressions for scripts. Subject first, like string.find:
 * forge.re.match(s, pattern [, flags [, init]]). Flags: i m s x A(anchored) b(bytes). */
#include "lua/bind.h"
#include "lua/vm.h"
#include "data/re.h"

#include <string.h>

#define MAX_PAIRS 33 /* whole match + 32 groups returned to Lua */

struct m {
    size_t ov[2 * MAX_PAIRS];
    int pairs;
    int checked; /* the subject's UTF-8 was validated by an earlier match */
};

/* Patterns a state keeps compiled; past this many, a new pattern is compiled for its call only. */
#define CACHE_MAX 1024

static const char CTX_KEY[] = "forge.re.ctx";
static const char CACHE_KEY[] = "forge.re.cache";

static void free_re(void *p)
{
    forge_re_free(p);
}

static void free_ctx(void *p)
{
    forge_re_ctx_free(p);
}

/* PCRE2's memory for a script (compiled patterns, match data, the match heap) is counted against
 * the state's --lua-memory like the state's own. */
static void *re_alloc(size_t n, void *ud)
{
    return forge_vm_xalloc(ud, n);
}

static void re_free(void *p, void *ud)
{
    forge_vm_xfree(ud, p);
}

/* Raises the error <rc>/<err> of a compile or match: the memory limit when the allocator
 * refused (it broke the limit), else "forge.re: message". */
static int re_error(lua_State *L, const struct forge_err *err)
{
    forge_vm_check_killed(L);
    if (err->code == FORGE_ENOMEM && forge_vm_get_limits(forge_vm_of(L)).memory)
        return luaL_error(L, "%s", forge_vm_limit_message(forge_vm_of(L)));
    return luaL_error(L, "forge.re: %s", err->msg);
}

/* This state's matching context, made on first use and kept in the registry. */
static struct forge_re_ctx *state_ctx(lua_State *L)
{
    if (lua_getfield(L, LUA_REGISTRYINDEX, CTX_KEY) == LUA_TUSERDATA) {
        struct forge_re_ctx *ctx = *(struct forge_re_ctx **)lua_touserdata(L, -1);
        lua_pop(L, 1);
        return ctx;
    }
    lua_pop(L, 1);
    struct forge_vm *vm = forge_vm_of(L);
    struct forge_re_mem mem = {re_alloc, re_free, vm};
    struct forge_re_ctx *ctx = forge_re_ctx_new(&mem);
    if (!ctx) {
        forge_vm_check_killed(L);
        luaL_error(L, "forge.re: out of memory");
    }
    forge_re_ctx_set_heap(ctx, forge_vm_get_limits(vm).memory);
    forge_lua_box(L, ctx, free_ctx);
    lua_setfield(L, LUA_REGISTRYINDEX, CTX_KEY);
    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, CACHE_KEY);
    return ctx;
}

/* The compiled pattern at <pidx> with the flags at <fidx>: from the state's cache, or compiled
 * and cached, or, once the cache is full, compiled for this call and freed with it (a box left on
 * the stack). May raise. */
static const struct forge_re *check_re(lua_State *L, int pidx, int fidx)
{
    size_t plen;
    const char *pat = luaL_checklstring(L, pidx, &plen);
    const char *fl = lua_isnoneornil(L, fidx) ? "" : forge_lua_checkcstr(L, fidx);
    FORGE_ERR_LOCAL(err); /* (a call's error without clearing its 4 KiB: once or more a match) */
    int flags = forge_re_flags(fl, &err);
    if (flags < 0)
        luaL_argerror(L, fidx, err.msg);
    struct forge_re_ctx *ctx = state_ctx(L);
    luaL_checkstack(L, 4, "forge.re");
    lua_getfield(L, LUA_REGISTRYINDEX, CACHE_KEY);
    int cache = lua_gettop(L);
    char fc = (char)('@' + flags);
    lua_pushlstring(L, &fc, 1);
    lua_pushvalue(L, pidx);
    lua_concat(L, 2); /* two strings: no metamethod */
    int key = lua_gettop(L);
    lua_pushvalue(L, key);
    if (lua_rawget(L, cache) == LUA_TUSERDATA) {
        const struct forge_re *re = *(struct forge_re **)lua_touserdata(L, -1);
        lua_pop(L, 3);
        return re;
    }
    lua_pop(L, 1);
    struct forge_re *re = forge_re_compile_in(ctx, pat, plen, flags, &err);
    if (!re)
        re_error(L, &err);
    forge_lua_box(L, re, free_re);
    lua_rawgeti(L, cache, 0); /* the count: no pattern key is a number */
    lua_Integer count = lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (count < CACHE_MAX) {
        lua_pushvalue(L, key);
        lua_pushvalue(L, -2);
        lua_rawset(L, cache);
        lua_pushinteger(L, count + 1);
        lua_rawseti(L, cache, 0);
        lua_pop(L, 3);
    } else {
        /* Keep the box above the arguments: it frees the pattern when the call's stack goes. */
        lua_replace(L, cache);
        lua_pop(L, 1);
    }
    return re;
}

/* Runs one match; raises on a broken limit or invalid subject. Returns 1 on a match. */
static int run(lua_State *L, const struct forge_re *re, const char *s, size_t len, size_t start,
               struct m *m)
{
    FORGE_ERR_LOCAL(err);
    int rc = forge_re_exec_in(state_ctx(L), re, s, len, start, m->ov, MAX_PAIRS, m->checked, &err);
    if (rc < 0)
        re_error(L, &err);
    m->pairs = rc;
    m->checked = 1;
    return rc > 0;
}

/* Pushes the captures (or the whole match when there are none); returns how many. */
static int push_captures(lua_State *L, const char *s, const struct m *m, int whole_if_none)
{
    if (m->pairs <= 1) {
        if (!whole_if_none)
            return 0;
        lua_pushlstring(L, s + m->ov[0], m->ov[1] - m->ov[0]);
        return 1;
    }
    luaL_checkstack(L, m->pairs, "too many captures");
    for (int i = 1; i < m->pairs; i++) {
        if (m->ov[2 * i] == (size_t)-1)
            lua_pushboolean(L, 0); /* an unset group */
        else
            lua_pushlstring(L, s + m->ov[2 * i], m->ov[2 * i + 1] - m->ov[2 * i]);
    }
    return m->pairs - 1;
}

static size_t init_pos(lua_State *L, int idx, size_t len)
{
    lua_Integer i = luaL_optinteger(L, idx, 1);
    if (i > 0)
        return (size_t)i - 1;
    if (i == 0)
        return 0;
    /* -i in unsigned arithmetic: negating math.mininteger as a signed value overflows. */
    lua_Unsigned back = (lua_Unsigned)0 - (lua_Unsigned)i;
    if (back > len)
        return 0;
    return len - (size_t)back;
}

static int l_match(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const struct forge_re *re = check_re(L, 2, 3);
    size_t start = init_pos(L, 4, len);
    struct m m;
    m.checked = 0;
    if (start > len || !run(L, re, s, len, start, &m)) {
        lua_pushnil(L);
        return 1;
    }
    return push_captures(L, s, &m, 1);
}

static int l_find(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const struct forge_re *re = check_re(L, 2, 3);
    size_t start = init_pos(L, 4, len);
    struct m m;
    m.checked = 0;
    if (start > len || !run(L, re, s, len, start, &m)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushinteger(L, (lua_Integer)m.ov[0] + 1);
    lua_pushinteger(L, (lua_Integer)m.ov[1]);
    return 2 + push_captures(L, s, &m, 0);
}

static int l_test(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const struct forge_re *re = check_re(L, 2, 3);
    struct m m;
    m.checked = 0;
    lua_pushboolean(L, run(L, re, s, len, 0, &m));
    return 1;
}

/* Length of the UTF-8 character at s[i] (1 in byte mode or on an invalid byte). */
static size_t char_len(const char *s, size_t len, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return i + n <= len ? n : 1;
}

/* gmatch iterator: upvalues subject, pattern, flags, position. */
static int gmatch_next(lua_State *L)
{
    size_t len;
    const char *s = lua_tolstring(L, lua_upvalueindex(1), &len);
    const struct forge_re *re = check_re(L, lua_upvalueindex(2), lua_upvalueindex(3));
    size_t pos = (size_t)lua_tointeger(L, lua_upvalueindex(4));
    struct m m;
    m.checked = lua_toboolean(L, lua_upvalueindex(5)); /* validated by an earlier step */
    if (pos > len || !run(L, re, s, len, pos, &m))
        return 0;
    size_t next = m.ov[1];
    if (m.ov[1] == m.ov[0])
        next = m.ov[1] < len ? m.ov[1] + char_len(s, len, m.ov[1]) : len + 1;
    lua_pushinteger(L, (lua_Integer)next);
    lua_replace(L, lua_upvalueindex(4));
    lua_pushboolean(L, 1);
    lua_replace(L, lua_upvalueindex(5));
    return push_captures(L, s, &m, 1);
}

static int l_gmatch(lua_State *L)
{
    luaL_checkstring(L, 1);
    lua_settop(L, 3);
    check_re(L, 2, 3); /* compile now, so a bad pattern raises here */
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_pushliteral(L, "");
        lua_replace(L, 3);
    }
    lua_pushinteger(L, 0);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, gmatch_next, 5);
    return 1;
}

/* Appends the replacement for one match to <b>. */
static void add_repl(lua_State *L, luaL_Buffer *b, const char *s, const struct m *m, int ridx)
{
    int t = lua_type(L, ridx);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) {
        size_t rl;
        const char *r = lua_tolstring(L, ridx, &rl);
        for (size_t i = 0; i < rl; i++) {
            if (r[i] != '$' || i + 1 == rl) {
                luaL_addchar(b, r[i]);
                continue;
            }
            char c = r[++i];
            if (c == '$') {
                luaL_addchar(b, '$');
            } else if (c >= '0' && c <= '9') {
                int g = c - '0';
                if (g >= m->pairs)
                    luaL_error(L, "forge.re.gsub: replacement refers to group $%d, but the "
                               "pattern has %d", g, m->pairs - 1);
                if (m->ov[2 * g] != (size_t)-1)
                    luaL_addlstring(b, s + m->ov[2 * g], m->ov[2 * g + 1] - m->ov[2 * g]);
            } else {
                luaL_error(L, "forge.re.gsub: invalid '$%c' in replacement (use $0-$9 or $$)", c);
            }
        }
        return;
    }
    if (t == LUA_TTABLE) {
        if (m->pairs > 1 && m->ov[2] != (size_t)-1)
            lua_pushlstring(L, s + m->ov[2], m->ov[3] - m->ov[2]);
        else
            lua_pushlstring(L, s + m->ov[0], m->ov[1] - m->ov[0]);
        lua_gettable(L, ridx);
    } else {
        lua_pushvalue(L, ridx);
        int n = push_captures(L, s, m, 1);
        lua_call(L, n, 1);
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s + m->ov[0], m->ov[1] - m->ov[0]);
    } else if (!lua_isstring(L, -1)) {
        luaL_error(L, "forge.re.gsub: invalid replacement value (a %s)", luaL_typename(L, -1));
    } else {
        luaL_addvalue(b);
    }
}

static int l_gsub(lua_State *L)
{
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    const struct forge_re *re = check_re(L, 2, 4);
    int rt = lua_type(L, 3);
    luaL_argexpected(L, rt == LUA_TSTRING || rt == LUA_TNUMBER || rt == LUA_TTABLE ||
                     rt == LUA_TFUNCTION, 3, "string/function/table");
    lua_Integer max = luaL_optinteger(L, 5, -1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t pos = 0, copied = 0;
    lua_Integer count = 0;
    struct m m;
    m.checked = 0;
    while ((max < 0 || count < max) && pos <= len && run(L, re, s, len, pos, &m)) {
        luaL_addlstring(&b, s + copied, m.ov[0] - copied);
        add_repl(L, &b, s, &m, 3);
        count++;
        /* A huge subject can take millions of matches, all in C where the instruction hook
         * never fires: look at the deadline now and then, so the call fails with the time
         * limit instead of the watchdog stopping forge. (Every match: each one re-checks
         * the whole subject's UTF-8, so a single one can take milliseconds.) */
        forge_vm_check_killed(L);
        copied = m.ov[1];
        if (m.ov[1] == m.ov[0]) {
            if (m.ov[1] >= len)
                break;
            size_t n = char_len(s, len, m.ov[1]);
            luaL_addlstring(&b, s + m.ov[1], n);
            copied = m.ov[1] + n;
            pos = copied;
        } else {
            pos = m.ov[1];
        }
    }
    if (copied < len)
        luaL_addlstring(&b, s + copied, len - copied);
    luaL_pushresult(&b);
    lua_pushinteger(L, count);
    return 2;
}

int forge_luaopen_re(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"match", l_match}, {"find", l_find},   {"test", l_test},
        {"gmatch", l_gmatch}, {"gsub", l_gsub}, {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
