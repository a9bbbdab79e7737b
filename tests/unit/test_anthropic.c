/* Anthropic messages: request bodies and answers. */
#include "dialect_cases.h"

static const struct forge_dialect *D = &forge_dialect_anthropic;

TEST(bodies)
{
    BODY_IS(D, USER_ONLY, "{'model':'m1','max_tokens':4096,'messages':[{'role':'user','content':[{'type':'text','text':'Hi'}]}]}");
    /* Results go in one user turn right after the calls, in call order; the next user text joins it. */
    BODY_IS(D, HISTORY,
            "{'model':'m1','max_tokens':4096,'system':'Be brief.','messages':["
            "{'role':'user','content':[{'type':'text','text':'Weather?'}]},"
            "{'role':'assistant','content':[{'type':'tool_use','id':'c1','name':'get_weather','input':{'city':'Paris'}},"
            "{'type':'tool_use','id':'c2','name':'get_weather','input':{}}]},"
            "{'role':'user','content':[{'type':'tool_result','tool_use_id':'c1','content':'{\\'t\\':18}'},"
            "{'type':'tool_result','tool_use_id':'c2','content':'no city','is_error':true},"
            "{'type':'text','text':'Thanks'}]}],"
            "'tools':[{'name':'get_weather','description':'Weather.',"
            "'input_schema':{'type':'object','properties':{'city':{'type':'string'}}}}]}");
    static const char *const forms[][2] = {
        {"'required'", "{'type':'any'}"},
        {"'none'", "{'type':'none'}"},
        {"'auto'", "{'type':'auto'}"},
        {"{'name':'now'}", "{'type':'tool','name':'now'}"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char req[512], want[512];
        snprintf(req, sizeof req, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'}],'tool_choice':%s}",
                 forms[i][0]);
        snprintf(want, sizeof want,
                 "{'model':'m1','max_tokens':4096,'messages':[{'role':'user','content':[{'type':'text','text':'Hi'}]}],"
                 "'tools':[{'name':'now','input_schema':{'type':'object','properties':{}}}],'tool_choice':%s}",
                 forms[i][1]);
        BODY_IS(D, req, want);
    }
    /* No parallel calls: the flag rides on tool_choice (auto when none was given). */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'}],'parallel_tool_calls':false,"
               "'params':{'max_tokens':100,'temperature':1,'top_k':5}}",
            "{'model':'m1','max_tokens':100,'messages':[{'role':'user','content':[{'type':'text','text':'Hi'}]}],"
            "'tools':[{'name':'now','input_schema':{'type':'object','properties':{}}}],"
            "'tool_choice':{'type':'auto','disable_parallel_tool_use':true},'temperature':1,'top_k':5}");
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'}],'parallel_tool_calls':false,"
               "'tool_choice':{'name':'now'}}",
            "{'model':'m1','max_tokens':4096,'messages':[{'role':'user','content':[{'type':'text','text':'Hi'}]}],"
            "'tools':[{'name':'now','input_schema':{'type':'object','properties':{}}}],"
            "'tool_choice':{'type':'tool','name':'now','disable_parallel_tool_use':true}}");
    /* Thinking blocks go back first; an empty assistant turn is left out. */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':''},{'role':'user','content':'Again'},"
               "{'role':'assistant','content':'Sure.','tool_calls':[{'id':'t1','name':'now','arguments':{}}],"
               "'provider_data':{'anthropic':{'thinking':[{'type':'thinking','thinking':'hm','signature':'s1'}]}}},"
               "{'role':'tool','tool_call_id':'t1','content':'12:00'}],'tools':[{'name':'now'}]}",
            "{'model':'m1','max_tokens':4096,'messages':["
            "{'role':'user','content':[{'type':'text','text':'Hi'},{'type':'text','text':'Again'}]},"
            "{'role':'assistant','content':[{'type':'thinking','thinking':'hm','signature':'s1'},{'type':'text','text':'Sure.'},"
            "{'type':'tool_use','id':'t1','name':'now','input':{}}]},"
            "{'role':'user','content':[{'type':'tool_result','tool_use_id':'t1','content':'12:00'}]}],"
            "'tools':[{'name':'now','input_schema':{'type':'object','properties':{}}}]}");
}

TEST(answers)
{
    PARSE_IS(D, USER_ONLY,
             "{'id':'msg_1','type':'message','role':'assistant','content':["
             "{'type':'thinking','thinking':'t','signature':'sg'},{'type':'text','text':'Looking.'},"
             "{'type':'tool_use','id':'toolu_1','name':'f','input':{'a':1}},{'type':'tool_use','id':'toolu_2','name':'g','input':{}}],"
             "'stop_reason':'tool_use','usage':{'input_tokens':20,'output_tokens':4}}",
             "{'message':{'role':'assistant','content':'Looking.','tool_calls':[{'id':'toolu_1','name':'f','arguments':{'a':1}},"
             "{'id':'toolu_2','name':'g','arguments':{}}],"
             "'provider_data':{'anthropic':{'thinking':[{'type':'thinking','thinking':'t','signature':'sg'}]}}},"
             "'finish_reason':'tool_calls','usage':{'input_tokens':20,'output_tokens':4}}");
    static const char *const reasons[][2] = {{"end_turn", "stop"}, {"stop_sequence", "stop"}, {"max_tokens", "length"},
                                             {"refusal", "content_filter"}, {"pause_turn", "pause_turn"}};
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++) {
        char wire[256], want[256];
        snprintf(wire, sizeof wire, "{'content':[{'type':'text','text':'x'}],'stop_reason':'%s'}", reasons[i][0]);
        snprintf(want, sizeof want, "{'message':{'role':'assistant','content':'x'},'finish_reason':'%s',"
                 "'usage':{'input_tokens':0,'output_tokens':0}}", reasons[i][1]);
        PARSE_IS(D, USER_ONLY, wire, want);
    }
    PARSE_FAILS(D, "{'type':'message'}", "no content array");
    PARSE_FAILS(D, "{'content':[{'type':'tool_use','name':'f'}]}", "lacks id or name");
    ERRMSG_IS(D, "{'type':'error','error':{'type':'overloaded_error','message':'Overloaded'}}", "Overloaded");
}

/* ---- the server side ---- */

TEST(serve_accept)
{
    ROUND_TRIP(D, "{'system':'Be brief.','messages':[{'role':'user','content':'Weather?'},"
                  "{'role':'assistant','content':'Checking.','tool_calls':[{'id':'c1','name':'get_weather','arguments':{'city':'Paris'}},"
                  "{'id':'c2','name':'get_weather','arguments':{}}]},"
                  "{'role':'tool','tool_call_id':'c1','name':'get_weather','content':'{\\'t\\':18}','is_error':false},"
                  "{'role':'tool','tool_call_id':'c2','name':'get_weather','content':'no city','is_error':true},"
                  "{'role':'user','content':'Thanks'}],'tools':[" WEATHER "],'tool_choice':{'name':'get_weather'},"
                  "'params':{'max_tokens':100,'temperature':0}}", NULL);
    /* "any" is required; disable_parallel_tool_use is parallel_tool_calls false; text blocks
     * join; thinking travels in provider_data; text beside results follows them */
    ACCEPT_IS(D, "{'model':'m','max_tokens':64,'stream':true,'system':[{'type':'text','text':'A.'},{'type':'text','text':'B.'}],"
                 "'messages':[{'role':'user','content':[{'type':'text','text':'Wea'},{'type':'text','text':'ther?'}]},"
                 "{'role':'assistant','content':[{'type':'thinking','thinking':'hm','signature':'s1'},"
                 "{'type':'tool_use','id':'t1','name':'get_weather','input':{'city':'Oslo'}}]},"
                 "{'role':'user','content':[{'type':'tool_result','tool_use_id':'t1','content':[{'type':'text','text':'12C'}]},"
                 "{'type':'text','text':'And tomorrow?'}]}],"
                 "'tools':[{'name':'get_weather','input_schema':{'type':'object'}}],"
                 "'tool_choice':{'type':'any','disable_parallel_tool_use':true}}",
              "{'messages':[{'role':'user','content':'Weather?'},"
              "{'role':'assistant','content':null,'tool_calls':[{'id':'t1','name':'get_weather','arguments':{'city':'Oslo'}}],"
              "'provider_data':{'anthropic':{'thinking':[{'type':'thinking','thinking':'hm','signature':'s1'}]}}},"
              "{'role':'tool','tool_call_id':'t1','name':'get_weather','content':'12C','is_error':false},"
              "{'role':'user','content':'And tomorrow?'}],'system':'A.B.',"
              "'tools':[{'name':'get_weather','parameters':{'type':'object'}}],'tool_choice':'required',"
              "'parallel_tool_calls':false,'params':{'max_tokens':64}}", 1);
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'}]}", "max_tokens: required");
    ACCEPT_FAILS(D, "{'max_tokens':9,'messages':[{'role':'system','content':'x'}]}", "messages[0].role: must be user or assistant");
    ACCEPT_FAILS(D, "{'max_tokens':9,'messages':[{'role':'user','content':[{'type':'image','source':{}}]}]}",
                 "messages[0].content[0]: only text and tool_result blocks are supported in user turns (type 'image')");
    ACCEPT_FAILS(D, "{'max_tokens':9,'messages':[{'role':'user','content':'x'},{'role':'assistant','content':"
                    "[{'type':'tool_use','id':'a','name':'f','input':[1]}]}]}",
                 "messages[1].content[0].input: must be an object");
    ACCEPT_FAILS(D, "{'max_tokens':9,'messages':[{'role':'user','content':'x'}],'tools':[{'type':'web_search_20250305','name':'w'}]}",
                 "tools[0]: only client tools (name, description, input_schema) are supported (type 'web_search_20250305')");
    ACCEPT_FAILS(D, "{'max_tokens':9,'messages':[{'role':'user','content':[{'type':'tool_result','tool_use_id':'zz','content':'r'}]}]}",
                 "request: messages[0]: tool result for 'zz' answers no earlier call");
}

#define TEXT_RESP "{'message':{'role':'assistant','content':'Hi there'},'finish_reason':'stop','usage':{'input_tokens':2,'output_tokens':5}}"
#define CALL_RESP "{'message':{'role':'assistant','content':'Let me check.','tool_calls':[{'id':'c1','name':'get_weather'," \
                  "'arguments':{'city':'Paris'}}]},'finish_reason':'tool_calls','usage':{'input_tokens':3,'output_tokens':4}}"

TEST(serve_answer)
{
    ANSWER_IS(D, USER_ONLY, CALL_RESP,
              "{'id':'id7','type':'message','role':'assistant','model':'m-served','content':["
              "{'type':'text','text':'Let me check.'},{'type':'tool_use','id':'c1','name':'get_weather','input':{'city':'Paris'}}],"
              "'stop_reason':'tool_use','stop_sequence':null,'usage':{'input_tokens':3,'output_tokens':4}}");
    ANSWER_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'Hel'},'finish_reason':'length','usage':{'input_tokens':1,'output_tokens':1}}",
              "{'id':'id7','type':'message','role':'assistant','model':'m-served','content':[{'type':'text','text':'Hel'}],"
              "'stop_reason':'max_tokens','stop_sequence':null,'usage':{'input_tokens':1,'output_tokens':1}}");
}

#define EV(name, data) "event: " name "\ndata: " data "\n\n"
#define START(in) EV("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"id7\",\"type\":\"message\",\"role\":\"assistant\"," \
    "\"model\":\"m-served\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":" in ",\"output_tokens\":1}}}") \
    EV("ping", "{\"type\":\"ping\"}")

TEST(serve_stream)
{
    STREAM_IS(D, USER_ONLY, TEXT_RESP,
              START("2")
              EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
              EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi there\"}}")
              EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
              EV("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
                                  "\"usage\":{\"output_tokens\":5}}")
              EV("message_stop", "{\"type\":\"message_stop\"}"));
    /* a tool_use block starts with empty input; its JSON follows in input_json_delta pieces */
    STREAM_IS(D, USER_ONLY,
              "{'message':{'role':'assistant','content':null,'tool_calls':[{'id':'c1','name':'f','arguments':{'city':'Paris','days':3}}]},"
              "'finish_reason':'tool_calls','usage':{'input_tokens':3,'output_tokens':4}}",
              START("3")
              EV("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
                                        "\"id\":\"c1\",\"name\":\"f\",\"input\":{}}}")
              EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
                                        "\"partial_json\":\"{\\\"city\\\":\\\"Paris\\\",\"}}")
              EV("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
                                        "\"partial_json\":\"\\\"days\\\":3}\"}}")
              EV("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
              EV("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},"
                                  "\"usage\":{\"output_tokens\":4}}")
              EV("message_stop", "{\"type\":\"message_stop\"}"));
}

TEST(serve_errors)
{
    static const struct { int status; const char *type; } cases[] = {
        {400, "invalid_request_error"}, {401, "authentication_error"}, {404, "not_found_error"},
        {413, "request_too_large"}, {429, "rate_limit_error"}, {500, "api_error"}, {503, "overloaded_error"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cJSON *o = D->error_body(cases[i].status, "why");
        CHECK_STR(forge_json_str(o, "type"), "error");
        CHECK_STR(forge_json_str(cJSON_GetObjectItem(o, "error"), "type"), cases[i].type);
        CHECK_STR(forge_json_str(cJSON_GetObjectItem(o, "error"), "message"), "why");
        cJSON_Delete(o);
    }
    CHECK_STR(D->stream_type, "text/event-stream");
}

int main(void)
{
    RUN(serve_accept);
    RUN(serve_answer);
    RUN(serve_stream);
    RUN(serve_errors);
    RUN(bodies);
    RUN(answers);
    return TEST_DONE();
}
