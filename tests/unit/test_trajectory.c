/* Trajectory importers: each format to the exact forge trajectory, detection, errors. */
#include "test.h"
#include "base/alloc.h"
#include "data/json.h"
#include "score/trajectory.h"

static char *import(const char *json, const char *fmt, struct forge_err *err)
{
    cJSON *doc = forge_json_parse(json, strlen(json), "<test>", err);
    if (!doc)
        return NULL;
    cJSON *t = forge_trajectory_import(doc, fmt, err);
    cJSON_Delete(doc);
    if (!t)
        return NULL;
    char *s = forge_json_print(t, 0);
    cJSON_Delete(t);
    return s;
}

static void check_import(const char *json, const char *fmt, const char *want)
{
    struct forge_err err = {0};
    char *got = import(json, fmt, &err);
    CHECK_STR(got ? got : err.msg, want);
    forge_free(got);
}

static void check_detect(const char *json, const char *want)
{
    struct forge_err err = {0};
    cJSON *doc = forge_json_parse(json, strlen(json), "<test>", &err);
    const char *f = forge_trajectory_detect(doc);
    CHECK_STR(f ? f : "(none)", want);
    cJSON_Delete(doc);
}

TEST(openai_chat)
{
    const char *in =
        "[{\"role\":\"system\",\"content\":\"be brief\"},"
        "{\"role\":\"user\",\"content\":\"Weather in Paris and Rome?\"},"
        "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
        "{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Paris\\\"}\"}},"
        "{\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"{\\\"city\\\":\\\"Rome\\\"}\"}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c2\",\"content\":\"{\\\"temp_c\\\":24}\"},"
        "{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"18C, cloudy\"},"
        "{\"role\":\"assistant\",\"content\":\"Paris 18C, Rome 24C.\"},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"thanks\"}]},"
        "{\"role\":\"assistant\",\"content\":\"You're welcome.\"}]";
    check_detect(in, "openai");
    check_import(in, NULL,
        "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"Weather in Paris and Rome?\"},"
        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"Paris 18C, Rome 24C.\",\"tool_calls\":["
        "{\"id\":\"c1\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Paris\"},\"round\":1,\"result\":{\"content\":\"18C, cloudy\"}},"
        "{\"id\":\"c2\",\"name\":\"get_weather\",\"arguments\":{\"city\":\"Rome\"},\"round\":1,\"result\":{\"temp_c\":24}}]},"
        "{\"turn_id\":2,\"role\":\"user\",\"content\":\"thanks\"},"
        "{\"turn_id\":2,\"role\":\"agent\",\"content\":\"You're welcome.\",\"tool_calls\":[]}]}");
    /* {"messages": [...]} request bodies too; an unmatched tool result is an error */
    check_import("{\"messages\":[{\"role\":\"tool\",\"tool_call_id\":\"zz\",\"content\":\"x\"}]}", NULL,
                 "openai: messages[0]: tool result for unknown call id 'zz'");
    check_import("[{\"role\":\"tool\",\"content\":\"x\"}]", "openai",
                 "openai: messages[0]: tool message without tool_call_id");
}

TEST(results_find_their_calls)
{
    /* a result by id goes to the last call of that id; one by name to the last call of that name
     * without a result or an error (one that got a result is never chosen again) */
    check_import(
        "[{\"role\":\"user\",\"content\":\"go\"},"
        "{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":["
        "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f1\",\"arguments\":\"{}\"}},"
        "{\"id\":\"a\",\"type\":\"function\",\"function\":{\"name\":\"f2\",\"arguments\":\"{}\"}}]},"
        "{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":\"r1\"},"
        "{\"role\":\"assistant\",\"content\":\"\",\"function_call\":{\"name\":\"g\",\"arguments\":\"{\\\"n\\\":1}\"}},"
        "{\"role\":\"assistant\",\"content\":\"\",\"function_call\":{\"name\":\"g\",\"arguments\":\"{\\\"n\\\":2}\"}},"
        "{\"role\":\"function\",\"name\":\"g\",\"content\":\"x\"},"
        "{\"role\":\"tool\",\"tool_call_id\":\"a\",\"content\":\"r2\"},"
        "{\"role\":\"function\",\"name\":\"g\",\"content\":\"y\"}]",
        "openai",
        "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"go\"},{\"turn_id\":1,\"role\":\"agent\","
        "\"content\":\"\",\"tool_calls\":[{\"id\":\"a\",\"name\":\"f1\",\"arguments\":{},\"round\":1},"
        "{\"id\":\"a\",\"name\":\"f2\",\"arguments\":{},\"round\":1,\"result\":{\"content\":\"r2\"}},"
        "{\"name\":\"g\",\"arguments\":{\"n\":1},\"round\":2,\"result\":{\"content\":\"y\"}},"
        "{\"name\":\"g\",\"arguments\":{\"n\":2},\"round\":3,\"result\":{\"content\":\"x\"}}]}]}");
    check_import("[{\"role\":\"user\",\"content\":\"go\"},"
                 "{\"role\":\"assistant\",\"content\":\"\",\"function_call\":{\"name\":\"g\",\"arguments\":\"{}\"}},"
                 "{\"role\":\"function\",\"name\":\"g\",\"content\":\"x\"},"
                 "{\"role\":\"function\",\"name\":\"g\",\"content\":\"y\"}]",
                 "openai", "openai: messages[3]: tool result for unknown call name 'g'");
}

TEST(openai_responses)
{
    const char *in =
        "{\"input\":[{\"role\":\"user\",\"content\":\"find flights\"},"
        "{\"type\":\"reasoning\",\"summary\":[]},"
        "{\"type\":\"function_call\",\"call_id\":\"f1\",\"name\":\"search\",\"arguments\":\"{\\\"q\\\":\\\"LHR\\\"}\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"f1\",\"output\":\"[1,2]\"},"
        "{\"type\":\"function_call\",\"call_id\":\"f2\",\"name\":\"book\",\"arguments\":\"not json\"},"
        "{\"type\":\"function_call_output\",\"call_id\":\"f2\",\"output\":\"ok\"},"
        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"Booked.\"}]}]}";
    check_detect(in, "openai-responses");
    check_import(in, NULL,
        "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"find flights\"},"
        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"Booked.\",\"tool_calls\":["
        "{\"id\":\"f1\",\"name\":\"search\",\"arguments\":{\"q\":\"LHR\"},\"round\":1,\"result\":[1,2]},"
        "{\"id\":\"f2\",\"name\":\"book\",\"arguments\":\"not json\",\"round\":2,\"result\":{\"content\":\"ok\"}}]}]}");
}

TEST(anthropic)
{
    const char *in =
        "{\"system\":\"s\",\"messages\":[{\"role\":\"user\",\"content\":\"look up order 7\"},"
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Checking.\"},"
        "{\"type\":\"tool_use\",\"id\":\"tu1\",\"name\":\"get_order\",\"input\":{\"id\":7}}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu1\",\"content\":[{\"type\":\"text\",\"text\":\"{\\\"status\\\":\\\"shipped\\\"}\"}]}]},"
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu2\",\"name\":\"track\",\"input\":{}}]},"
        "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu2\",\"is_error\":true,\"content\":\"tracking down\"}]},"
        "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"It has shipped.\"}]}]}";
    check_detect(in, "anthropic");
    check_import(in, NULL,
        "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"look up order 7\"},"
        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"Checking.\\nIt has shipped.\",\"tool_calls\":["
        "{\"id\":\"tu1\",\"name\":\"get_order\",\"arguments\":{\"id\":7},\"round\":1,\"result\":{\"status\":\"shipped\"}},"
        "{\"id\":\"tu2\",\"name\":\"track\",\"arguments\":{},\"round\":2,\"error\":\"tracking down\"}]}]}");
}

TEST(gemini)
{
    const char *in =
        "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Weather in Oslo?\"}]},"
        "{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_weather\",\"args\":{\"city\":\"Oslo\"}}}]},"
        "{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"get_weather\",\"response\":{\"temp_c\":-2}}}]},"
        "{\"role\":\"model\",\"parts\":[{\"text\":\"It is -2C in Oslo.\"}]}]}";
    check_detect(in, "gemini");
    check_import(in, NULL,
        "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"Weather in Oslo?\"},"
        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"It is -2C in Oslo.\",\"tool_calls\":["
        "{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"},\"round\":1,\"result\":{\"temp_c\":-2}}]}]}");
    check_import("[{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"name\":\"x\",\"response\":{}}}]}]", NULL,
                 "gemini: contents[0]: tool result for unknown call name 'x'");
}

TEST(forge_and_turns)
{
    const char *traj = "{\"trajectory_id\":\"t1\",\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"hi\"}],\"metadata\":{\"model\":\"m\"}}";
    check_detect(traj, "forge");
    check_import(traj, NULL, traj);
    check_import(traj, "agent-eval-harness", traj);
    const char *turns = "[{\"turn_id\":1,\"role\":\"user\",\"content\":\"hi\",\"timestamp\":\"2026-01-01T00:00:00Z\"},"
                        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"yo\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"tool_calls\":[]}]";
    check_detect(turns, "turns");
    check_import(turns, NULL,
        "{\"turns\":[{\"turn_id\":1,\"role\":\"user\",\"content\":\"hi\",\"timestamp\":\"2026-01-01T00:00:00Z\"},"
        "{\"turn_id\":1,\"role\":\"agent\",\"content\":\"yo\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"tool_calls\":[]}]}");
    check_import("{\"turns\":{}}", "forge", "forge: expected an object with a \"turns\" array");
    check_import("{\"turns\":[1]}", NULL, "forge: turns[0]: expected an object");
    check_import("{\"x\":1}", NULL,
        "not a trajectory in a known format (forge, agent-eval-harness, turns, openai, "
        "openai-responses, anthropic, gemini); name it with --input-format");
    check_import("[]", "bard",
        "unknown trajectory format 'bard' (forge, agent-eval-harness, turns, openai, "
        "openai-responses, anthropic, gemini)");
}

int main(void)
{
    RUN(openai_chat);
    RUN(results_find_their_calls);
    RUN(openai_responses);
    RUN(anthropic);
    RUN(gemini);
    RUN(forge_and_turns);
    return TEST_DONE();
}
