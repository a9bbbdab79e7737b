/* Allocation failures in the dialects: every failing allocation (forge's and cJSON's, through
 * hooks) must end in FORGE_ENOMEM with nothing leaked or half-built; run under ASan to see
 * leaks. */
#include "dialect_cases.h"

static const char *const REQ =
    "{'system':'S','messages':[{'role':'user','content':'Hi'},"
    "{'role':'assistant','content':'Checking.','tool_calls':[{'id':'a','name':'f','arguments':{'x':[1,{'y':2}]}},"
    "{'id':'b','name':'g','arguments':{}}],'provider_data':{'anthropic':{'thinking':[{'type':'thinking','thinking':'t','signature':'s'}]},"
    "'openai_responses':{'reasoning':[{'type':'reasoning','id':'r'}]},"
    "'gemini':{'parts':[{'text':'Checking.'},{'functionCall':{'name':'f','args':{'x':1}},'thoughtSignature':'G'},"
    "{'functionCall':{'id':'b','name':'g','args':{}}}]}}},"
    "{'role':'tool','tool_call_id':'b','content':'oops','is_error':true},{'role':'tool','tool_call_id':'a','content':'{\\'ok\\':1}'},"
    "{'role':'user','content':'And?'}],"
    "'tools':[{'name':'f','description':'F','parameters':{'type':'object','properties':{'x':{'type':'array'}}}},{'name':'g'}],"
    "'tool_choice':{'name':'g'},'parallel_tool_calls':false,"
    "'params':{'temperature':0,'max_tokens':9,'top_p':1,'think':false}}";

static const char *const WIRE[5] = {
    "{'choices':[{'message':{'content':'x','tool_calls':[{'id':'1','function':{'name':'f','arguments':'{\\'a\\':1}'}},"
    "{'function':{'name':'g','arguments':'{bad'}}]},'finish_reason':'tool_calls'}],'usage':{'prompt_tokens':1}}",
    "{'status':'incomplete','incomplete_details':{'reason':'max_output_tokens'},'output':[{'type':'reasoning','id':'r'},"
    "{'type':'message','content':[{'type':'output_text','text':'a'},{'type':'output_text','text':'b'}]},"
    "{'type':'function_call','call_id':'c','name':'f','arguments':'[1]'}]}",
    "{'content':[{'type':'thinking','thinking':'t'},{'type':'text','text':'a'},{'type':'text','text':'b'},"
    "{'type':'tool_use','id':'t','name':'f','input':{'q':[1]}}],'stop_reason':'tool_use'}",
    "{'candidates':[{'content':{'parts':[{'text':'a'},{'text':'b'},{'functionCall':{'name':'f','args':{'q':1}},"
    "'thoughtSignature':'S'}]},'finishReason':'RECITATION'}]}",
    "{'message':{'content':'hi','tool_calls':[{'function':{'name':'f','arguments':{'a':1}}},"
    "{'function':{'name':'g','arguments':'{\\'b\\':2}'}}]},'done_reason':'stop'}",
};

static void *hook_malloc(size_t n)
{
    return forge_malloc(n);
}

static void hook_free(void *p)
{
    forge_free(p);
}

TEST(faults)
{
    const struct forge_dialect *ds[5] = {&forge_dialect_openai, &forge_dialect_openai_responses,
                                         &forge_dialect_anthropic, &forge_dialect_gemini, &forge_dialect_ollama};
    for (int k = 0; k < 5; k++) {
        const struct forge_dialect *d = ds[k];
        cJSON *req = J(REQ), *wire = J(WIRE[k]);
        /* Ollama cannot name a required tool, so it gets the request as is (named tool). */
        int builds = 0, parses = 0;
        for (long n = 1; n < 100000; n++) {
            struct forge_err e;
            cJSON *body = NULL;
            forge_alloc_fail_at(n);
            int rc = d->build(req, "m", &body, &e);
            long used = forge_alloc_fail_at(0);
            if (rc == 0) {
                CHECK(body != NULL);
                cJSON_Delete(body);
                if (used < n) {
                    builds = (int)n;
                    break;
                }
                continue; /* the failing allocation was one whose failure is tolerated */
            }
            CHECK_INT(rc, FORGE_ENOMEM);
            CHECK(body == NULL);
        }
        for (long n = 1; n < 100000; n++) {
            struct forge_err e;
            cJSON *resp = NULL;
            forge_alloc_fail_at(n);
            int rc = d->parse(req, wire, &resp, &e);
            long used = forge_alloc_fail_at(0);
            if (rc == 0) {
                CHECK(resp != NULL);
                cJSON_Delete(resp);
                if (used < n) {
                    parses = (int)n;
                    break;
                }
                continue;
            }
            CHECK_INT(rc, FORGE_ENOMEM);
            CHECK(resp == NULL);
        }
        fprintf(stderr, "%s: %d build and %d parse allocations checked\n", d->name, builds - 1, parses - 1);
        CHECK(builds > 20);
        CHECK(parses > 5);
        cJSON_Delete(req);
        cJSON_Delete(wire);
    }
}

int main(void)
{
    cJSON_Hooks hooks = {hook_malloc, hook_free};
    cJSON_InitHooks(&hooks);
    RUN(faults);
    return TEST_DONE();
}
