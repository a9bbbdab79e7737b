/* OpenAI chat completions: request bodies and answers. */
#include "dialect_cases.h"

static const struct forge_dialect *D = &forge_dialect_openai;

TEST(bodies)
{
    BODY_IS(D, USER_ONLY, "{'model':'m1','messages':[{'role':'user','content':'Hi'}]}");
    BODY_IS(D, HISTORY,
            "{'model':'m1','messages':[{'role':'system','content':'Be brief.'},{'role':'user','content':'Weather?'},"
            "{'role':'assistant','content':null,'tool_calls':["
            "{'id':'c1','type':'function','function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'}},"
            "{'id':'c2','type':'function','function':{'name':'get_weather','arguments':'{}'}}]},"
            "{'role':'tool','tool_call_id':'c1','content':'{\\'t\\':18}'},"
            "{'role':'tool','tool_call_id':'c2','content':'Error: no city'},"
            "{'role':'user','content':'Thanks'}],"
            "'tools':[{'type':'function','function':{'name':'get_weather','description':'Weather.',"
            "'parameters':{'type':'object','properties':{'city':{'type':'string'}}}}}]}");
    /* A tool without parameters gets an empty object schema; params pass through. */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'}],'tool_choice':{'name':'now'},"
               "'parallel_tool_calls':false,'params':{'temperature':0.2,'max_completion_tokens':50,'seed':7}}",
            "{'model':'m1','messages':[{'role':'user','content':'Hi'}],"
            "'tools':[{'type':'function','function':{'name':'now','parameters':{'type':'object','properties':{}}}}],"
            "'tool_choice':{'type':'function','function':{'name':'now'}},'parallel_tool_calls':false,"
            "'temperature':0.2,'max_completion_tokens':50,'seed':7}");
    /* An assistant turn with neither text nor calls is sent with empty text. */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':null},{'role':'user','content':'?'}]}",
            "{'model':'m1','messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':''},"
            "{'role':'user','content':'?'}]}");
    /* tool_choice without tools is meaningless on the wire and left out. */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tool_choice':'none'}",
            "{'model':'m1','messages':[{'role':'user','content':'Hi'}]}");
}

TEST(checks)
{
    BUILD_FAILS(D, "{'messages':[]}", FORGE_EINVAL, "messages: must be a non-empty array");
    BUILD_FAILS(D, "{'messages':[{'role':'system','content':'x'}]}", FORGE_EINVAL, "the system prompt goes in");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'assistant','content':null,"
                   "'tool_calls':[{'id':'a','name':'f','arguments':{}}]}]}",
                FORGE_EINVAL, "messages[1].tool_calls[0]: call 'a' (f) has no tool message");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'tool','tool_call_id':'z','content':'r'}]}",
                FORGE_EINVAL, "messages[1]: tool result for 'z' answers no earlier call");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'assistant','content':null,"
                   "'tool_calls':[{'id':'a','name':'f','arguments':'{}'}]},{'role':'tool','tool_call_id':'a','content':'r'}]}",
                FORGE_EINVAL, "messages[1].tool_calls[0].arguments: must be an object");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'assistant','content':null,"
                   "'tool_calls':[{'id':'a','name':'f','arguments':{}}]},{'role':'tool','tool_call_id':'a','content':'r'},"
                   "{'role':'tool','tool_call_id':'a','content':'again'}]}",
                FORGE_EINVAL, "needs exactly one tool message after it (found 2)");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'}],'tool_choice':'always'}", FORGE_EINVAL,
                "tool_choice: 'always' is not auto, none, required");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'}],'tools':[{'name':'f'}],'tool_choice':{'name':'g'}}",
                FORGE_EINVAL, "names 'g', which is not among the tools");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'x'}],'parallel_tool_calls':1}", FORGE_EINVAL,
                "parallel_tool_calls: must be true or false");
}

TEST(answers)
{
    PARSE_IS(D, USER_ONLY,
             "{'choices':[{'index':0,'message':{'role':'assistant','content':'Hello'},'finish_reason':'stop'}],"
             "'usage':{'prompt_tokens':5,'completion_tokens':2,'total_tokens':7}}",
             "{'message':{'role':'assistant','content':'Hello'},'finish_reason':'stop',"
             "'usage':{'input_tokens':5,'output_tokens':2}}");
    /* Calls: arguments text decoded; a missing id is named after the history's calls. */
    PARSE_IS(D, HISTORY,
             "{'choices':[{'message':{'role':'assistant','content':null,'tool_calls':["
             "{'id':'x1','type':'function','function':{'name':'f','arguments':'{\\'a\\':[1,2]}'}},"
             "{'type':'function','function':{'name':'g','arguments':'{}'}},"
             "{'id':'x3','type':'function','function':{'name':'h','arguments':''}}]},"
             "'finish_reason':'tool_calls'}]}",
             "{'message':{'role':'assistant','content':null,'tool_calls':["
             "{'id':'x1','name':'f','arguments':{'a':[1,2]}},"
             "{'id':'call_4','name':'g','arguments':{}},"
             "{'id':'x3','name':'h','arguments':{}}]},"
             "'finish_reason':'tool_calls','usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY,
             "{'choices':[{'message':{'role':'assistant','content':null,'refusal':'I cannot help.'},"
             "'finish_reason':'content_filter'}]}",
             "{'message':{'role':'assistant','content':'I cannot help.'},'finish_reason':'content_filter',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY, "{'choices':[{'message':{'role':'assistant','content':'Hel'},'finish_reason':'length'}]}",
             "{'message':{'role':'assistant','content':'Hel'},'finish_reason':'length',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_FAILS(D, "{'choices':[]}", "no choices[0].message");
    PARSE_FAILS(D, "{'choices':[{'message':{'tool_calls':[{'function':{}}]}}]}", "tool_calls[0] has no function.name");
    ERRMSG_IS(D, "{'error':{'message':'Bad key','type':'invalid_request_error'}}", "Bad key");
    ERRMSG_IS(D, "{'detail':'x'}", "");
}

/* Arguments that are not a JSON object stay visible to the agent loop. */
TEST(malformed_arguments)
{
    struct forge_err e;
    cJSON *req = J(USER_ONLY), *resp = NULL;
    cJSON *w = J("{'choices':[{'message':{'tool_calls':[{'id':'x','function':{'name':'g','arguments':'{\\'a\\':'}},"
                 "{'id':'y','function':{'name':'g','arguments':'[1]'}}]}}]}");
    CHECK_INT(D->parse(req, w, &resp, &e), 0);
    cJSON *c0 = forge_json_at(resp, "message.tool_calls[0]"), *c1 = forge_json_at(resp, "message.tool_calls[1]");
    CHECK_STR(forge_json_str(c0, "arguments_text"), "{\"a\":");
    CHECK(strncmp(forge_json_str(c0, "arguments_error"), "arguments:1:", 12) == 0);
    CHECK_INT(cJSON_GetArraySize(cJSON_GetObjectItem(c0, "arguments")), 0);
    CHECK_STR(forge_json_str(c1, "arguments_text"), "[1]");
    CHECK_STR(forge_json_str(c1, "arguments_error"), "arguments: not a JSON object");
    cJSON_Delete(req);
    cJSON_Delete(w);
    cJSON_Delete(resp);
}

int main(void)
{
    RUN(bodies);
    RUN(malformed_arguments);
    RUN(checks);
    RUN(answers);
    return TEST_DONE();
}
