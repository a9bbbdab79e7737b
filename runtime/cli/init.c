/* forge init: scaffolds a working suite, from the embedded example or from tool definitions. */
#include "cli/cli.h"
#include "cli/init.h"
#include "base/alloc.h"
#include "base/buf.h"
#include "base/file.h"
#include "data/json.h"
#include "tools/tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char forge_usage_init[] =
    "usage: forge init [DIR] [--from-openai-tools FILE.json | --from-mcp-tools FILE.json]\n"
    "\n"
    "Writes a working suite into DIR (default: the current folder), which must be empty or not\n"
    "exist yet: suite.lua, tools.lua (one Lua tool, one mock), rules.lua (the offline scripted\n"
    "model), assertions.lua (a custom assertion), evals/golden.json, evals/labeled.json and a\n"
    "README. 'forge script DIR/suite.lua' passes at once. Nothing is ever overwritten.\n"
    "\n"
    "options:\n"
    "  --from-openai-tools FILE  start from an OpenAI tools array (or any tool definitions\n"
    "                            forge run --tools reads): a mock per tool, a scripted rule and\n"
    "                            a golden case per tool\n"
    "  --from-mcp-tools FILE     the same from an MCP tools/list result\n"
    "\n"
    "Exit codes: 0 written; 2 bad usage, a folder that is not empty, or bad tool definitions.\n";

/* Creates <dir>/<rel> with <len> bytes of <text>, failing if it exists. */
static int write_new(const char *dir, const char *rel, const char *text, size_t len)
{
    char *path = forge_path_join(dir, rel);
    char *parent = path ? forge_path_dir(path) : NULL;
    struct forge_err err = {0};
    int rc = !path || !parent ? FORGE_ENOMEM : forge_mkdir_p(parent, &err);
    if (rc) {
        forge_cli_error("init: %s", err.msg[0] ? err.msg : "out of memory");
    } else {
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
            forge_cli_error("init: %s: cannot write: %s", path, strerror(errno));
            rc = FORGE_EIO;
        }
        if (fd >= 0)
            close(fd);
    }
    forge_free(parent);
    forge_free(path);
    return rc;
}

/* 0 when <dir> does not exist or is an empty folder; else an error naming it. */
static int check_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0)
        return errno == ENOENT ? 0 : (forge_cli_error("init: %s: %s", dir, strerror(errno)), 2);
    if (!S_ISDIR(st.st_mode)) {
        forge_cli_error("init: %s exists and is not a folder; nothing written", dir);
        return 2;
    }
    DIR *d = opendir(dir);
    if (!d) {
        forge_cli_error("init: %s: %s", dir, strerror(errno));
        return 2;
    }
    struct dirent *e;
    int used = 0;
    while (!used && (e = readdir(d)))
        used = strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    if (used) {
        forge_cli_error("init: %s is not empty; forge init writes only into an empty or new "
                        "folder, so nothing is overwritten (nothing written)", dir);
        return 2;
    }
    return 0;
}

/* Appends <s> as a Lua string literal. */
static void lua_quote(struct forge_buf *b, const char *s)
{
    forge_buf_addc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            forge_buf_addf(b, "\\%c", *p);
        else if (*p == '\n')
            forge_buf_adds(b, "\\n");
        else if (*p < 32 || *p == 127)
            forge_buf_addf(b, "\\%03u", *p);
        else
            forge_buf_addc(b, (char)*p);
    }
    forge_buf_addc(b, '"');
}

/* A value that <schema> accepts, for the arguments of a generated call: the first enum value or
 * const, else a value of the first type with every required property filled. */
static cJSON *sample(const cJSON *schema, int depth)
{
    if (!cJSON_IsObject(schema) || depth > 16)
        return cJSON_CreateString("example");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(schema, "enum");
    if (cJSON_IsArray(en) && en->child)
        return cJSON_Duplicate(en->child, 1);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(schema, "const");
    if (c)
        return cJSON_Duplicate(c, 1);
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(schema, "anyOf");
    if (!any)
        any = cJSON_GetObjectItemCaseSensitive(schema, "oneOf");
    if (cJSON_IsArray(any) && any->child)
        return sample(any->child, depth + 1);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(schema, "type");
    const char *type = cJSON_IsString(t) ? t->valuestring
                       : cJSON_IsArray(t) && cJSON_IsString(t->child) ? t->child->valuestring
                       : cJSON_GetObjectItemCaseSensitive(schema, "properties") ? "object" : "string";
    if (!strcmp(type, "integer") || !strcmp(type, "number")) {
        const cJSON *min = cJSON_GetObjectItemCaseSensitive(schema, "minimum");
        return cJSON_CreateNumber(cJSON_IsNumber(min) && min->valuedouble > 1 ? min->valuedouble : 1);
    }
    if (!strcmp(type, "boolean"))
        return cJSON_CreateTrue();
    if (!strcmp(type, "null"))
        return cJSON_CreateNull();
    if (!strcmp(type, "array")) {
        cJSON *a = cJSON_CreateArray();
        const cJSON *mi = cJSON_GetObjectItemCaseSensitive(schema, "minItems");
        if (cJSON_IsNumber(mi) && mi->valuedouble >= 1)
            cJSON_AddItemToArray(a, sample(cJSON_GetObjectItemCaseSensitive(schema, "items"), depth + 1));
        return a;
    }
    if (!strcmp(type, "object")) {
        cJSON *o = cJSON_CreateObject();
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
        const cJSON *req = cJSON_GetObjectItemCaseSensitive(schema, "required");
        for (const cJSON *r = cJSON_IsArray(req) ? req->child : NULL; r; r = r->next)
            if (cJSON_IsString(r) && !cJSON_GetObjectItemCaseSensitive(o, r->valuestring))
                cJSON_AddItemToObject(o, r->valuestring,
                                      sample(cJSON_GetObjectItemCaseSensitive(props, r->valuestring),
                                             depth + 1));
        return o;
    }
    return cJSON_CreateString("example");
}

/* Appends a long bracket literal holding <text>, with a level no "]=...=]" inside it closes. */
static void lua_long(struct forge_buf *b, const char *text)
{
    char close[40] = "]";
    int level = 0;
    for (;; level++) {
        memset(close + 1, '=', (size_t)level);
        close[level + 1] = ']';
        close[level + 2] = '\0';
        if (!strstr(text, close) || level == 30)
            break;
    }
    forge_buf_addf(b, "[%.*s[", level, "==============================");
    forge_buf_adds(b, text);
    forge_buf_addf(b, "]%.*s]", level, "==============================");
}

static int from_tools(const char *dir, const char *file)
{
    struct forge_toolset tools = {0};
    struct forge_err err = {0};
    if (forge_toolset_load_file(&tools, file, &err)) {
        forge_cli_error("init: %s", err.msg);
        return 2;
    }
    if (tools.n == 0) {
        forge_cli_error("init: %s defines no tool", file);
        forge_toolset_free(&tools);
        return 2;
    }
    struct forge_buf tl, rl;
    forge_buf_init(&tl, 0);
    forge_buf_init(&rl, 0);
    cJSON *cases = cJSON_CreateArray();
    forge_buf_adds(&tl, "-- Stubs of the tools in the definitions forge init started from: each answers with a\n"
                        "-- mock. Replace a mock with run = function(args) ... end to run real code.\n"
                        "local forge = require \"forge\"\n\nreturn {\n");
    forge_buf_adds(&rl, "-- The offline scripted model: for each golden case, a call of its tool with arguments\n"
                        "-- its schema accepts, then an answer.\nlocal forge = require \"forge\"\n\n"
                        "return forge.scripted {\n");
    for (int i = 0; i < tools.n; i++) {
        const struct forge_tool *t = tools.v[i];
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(t->def, "parameters");
        const char *desc = forge_json_str(t->def, "description");
        char *schema_text = params ? forge_json_print(params, FORGE_JSON_PRETTY) : NULL;
        forge_buf_adds(&tl, "  forge.tool {\n    name = ");
        lua_quote(&tl, t->name);
        forge_buf_adds(&tl, ",\n    description = ");
        lua_quote(&tl, desc ? desc : "");
        if (schema_text) {
            forge_buf_adds(&tl, ",\n    schema = forge.json.decode ");
            lua_long(&tl, schema_text);
        }
        forge_buf_adds(&tl, ",\n    mock = { ok = true, tool = ");
        lua_quote(&tl, t->name);
        forge_buf_adds(&tl, " },\n  },\n");
        forge_free(schema_text);

        char id[300];
        snprintf(id, sizeof id, "gs-%s-001", t->name);
        cJSON *args = sample(params, 0);
        char *args_text = forge_json_print(args, 0);
        cJSON_Delete(args);
        forge_buf_adds(&rl, "  { case = ");
        lua_quote(&rl, id);
        forge_buf_adds(&rl, ", calls = { { name = ");
        lua_quote(&rl, t->name);
        forge_buf_adds(&rl, ", arguments = forge.json.decode ");
        lua_long(&rl, args_text ? args_text : "{}");
        forge_buf_adds(&rl, " } }, reply = ");
        char reply[300];
        snprintf(reply, sizeof reply, "Done with %s.", t->name);
        lua_quote(&rl, reply);
        forge_buf_adds(&rl, " },\n");
        forge_free(args_text);

        cJSON *c = cJSON_CreateObject(), *in = cJSON_AddObjectToObject(c, "input");
        cJSON_AddStringToObject(c, "id", id);
        char msg[300];
        snprintf(msg, sizeof msg, "Use %s.", t->name);
        cJSON_AddStringToObject(in, "message", msg);
        cJSON *ex = cJSON_AddObjectToObject(c, "expect"), *called = cJSON_AddArrayToObject(ex, "toolsCalled");
        cJSON_AddItemToArray(called, cJSON_CreateString(t->name));
        cJSON_AddTrueToObject(ex, "argsMatchSchema");
        cJSON_AddTrueToObject(ex, "noToolErrors");
        cJSON_AddItemToArray(cases, c);
    }
    forge_buf_adds(&tl, "}\n");
    forge_buf_adds(&rl, "  { reply = \"I did not call a tool.\" },\n}\n");
    char *golden = forge_json_print(cases, FORGE_JSON_PRETTY);
    cJSON_Delete(cases);
    static const char suite[] =
        "-- A forge suite made by forge init from tool definitions: run it with\n"
        "-- `forge script suite.lua`.\n"
        "local forge = require \"forge\"\n\n"
        "return forge.suite {\n"
        "  name = \"my-agent\",\n"
        "  model = require \"rules\",            -- or a real model: \"openai:gpt-4o-mini\", ...\n"
        "  tools = require \"tools\",\n"
        "  cases = forge.evals(\"evals/golden.json\"),\n"
        "}\n";
    static const char readme[] =
        "A forge suite with a stub and a golden case for each tool, made by `forge init`.\n"
        "Run it offline with `forge script suite.lua`; replace the mocks in tools.lua with real code.\n"
        "Add cases to evals/golden.json; see `man forge` and the docs installed with forge.\n";
    int rc = !golden || !tl.data || !rl.data;
    if (rc)
        forge_cli_error("init: out of memory");
    else {
        size_t glen = strlen(golden);
        rc = write_new(dir, "suite.lua", suite, sizeof suite - 1) ||
             write_new(dir, "tools.lua", tl.data, tl.len) ||
             write_new(dir, "rules.lua", rl.data, rl.len) ||
             write_new(dir, "evals/golden.json", golden, glen) ||
             write_new(dir, "README.md", readme, sizeof readme - 1);
    }
    forge_free(golden);
    forge_buf_free(&tl);
    forge_buf_free(&rl);
    forge_toolset_free(&tools);
    return rc ? 2 : 0;
}

int forge_cmd_init(int argc, char **argv)
{
    const char *dir = NULL, *from = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(forge_usage_init, stdout);
            return 0;
        }
        if (!strcmp(a, "--from-openai-tools") || !strcmp(a, "--from-mcp-tools")) {
            if (i + 1 >= argc) {
                forge_cli_error("init: %s needs a file", a);
                return 2;
            }
            if (from) {
                forge_cli_error("init: give one file of tool definitions");
                return 2;
            }
            from = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            forge_cli_error("init: unknown option '%s' (run 'forge help init')", a);
            return 2;
        } else if (dir) {
            forge_cli_error("init: one folder only ('%s' and '%s')", dir, a);
            return 2;
        } else {
            dir = a;
        }
    }
    if (!dir)
        dir = ".";
    if (check_dir(dir))
        return 2;
    if (from) {
        int rc = from_tools(dir, from);
        if (!rc)
            printf("forge init: wrote a suite for the tools of %s into %s; run: forge script %s/suite.lua\n",
                   from, dir, dir);
        return rc;
    }
    for (const struct forge_embedded_file *f = forge_init_files; f->path; f++)
        if (write_new(dir, f->path, f->text, f->len))
            return 2;
    printf("forge init: wrote a suite into %s; run: forge script %s/suite.lua\n", dir, dir);
    return 0;
}
