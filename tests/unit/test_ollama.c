/* Ollama /api/chat: request bodies and answers. */
#include "dialect_cases.h"

static const struct forge_dialect *D = &forge_dialect_ollama;

TEST(bodies)
{
    BODY_IS(D, USER_ONLY, "{'model':'m1','messages':[{'role':'user','content':'Hi'}],'stream':false}");
    BODY_IS(D, HISTORY,
            "{'model':'m1','messages':[{'role':'system','content':'Be brief.'},{'role':'user','content':'Weather?'},"
            "{'role':'assistant','content':'','tool_calls':[{'function':{'name':'get_weather','arguments':{'city':'Paris'}}},"
            "{'function':{'name':'get_weather','arguments':{}}}]},"
            "{'role':'tool','tool_name':'get_weather','content':'{\\'t\\':18}'},"
            "{'role':'tool','tool_name':'get_weather','content':'Error: no city'},"
            "{'role':'user','content':'Thanks'}],"
            "'tools':[{'type':'function','function':{'name':'get_weather','description':'Weather.',"
            "'parameters':{'type':'object','properties':{'city':{'type':'string'}}}}}],'stream':false}");
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'},{'name':'later'}],'tool_choice':'none'}",
            "{'model':'m1','messages':[{'role':'user','content':'Hi'}],'stream':false}");
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'},{'name':'later'}],"
               "'tool_choice':{'name':'later'},'params':{'temperature':0,'max_tokens':20,'think':false,'num_ctx':4096}}",
            "{'model':'m1','messages':[{'role':'user','content':'Hi'}],"
            "'tools':[{'type':'function','function':{'name':'later','parameters':{'type':'object','properties':{}}}}],"
            "'stream':false,'options':{'temperature':0,'num_predict':20,'num_ctx':4096},'think':false}");
    BUILD_FAILS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'}],'tool_choice':'required'}",
                FORGE_EINVAL, "cannot force a tool call");
}

TEST(answers)
{
    PARSE_IS(D, HISTORY,
             "{'model':'m1','message':{'role':'assistant','content':'','tool_calls':[{'function':{'name':'f','arguments':{'a':1}}},"
             "{'function':{'index':1,'name':'g','arguments':'{\\'b\\':2}'}}]},'done':true,'done_reason':'stop',"
             "'prompt_eval_count':30,'eval_count':6}",
             "{'message':{'role':'assistant','content':null,'tool_calls':[{'id':'call_3','name':'f','arguments':{'a':1}},"
             "{'id':'call_4','name':'g','arguments':{'b':2}}]},'finish_reason':'tool_calls',"
             "'usage':{'input_tokens':30,'output_tokens':6}}");
    PARSE_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'Hello'},'done':true,'done_reason':'length'}",
             "{'message':{'role':'assistant','content':'Hello'},'finish_reason':'length','usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':''},'done':true,'done_reason':'stop'}",
             "{'message':{'role':'assistant','content':''},'finish_reason':'stop','usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_FAILS(D, "{'done':true}", "no message");
    PARSE_FAILS(D, "{'message':{'tool_calls':[{'function':{}}]}}", "tool_calls[0] has no function.name");
    ERRMSG_IS(D, "{'error':'model \\'m1\\' not found'}", "model \"m1\" not found");
}

/* ---- the server side ---- */

TEST(serve_accept)
{
    /* Ollama sends no call ids: accept names them call_1, call_2 and pairs results by name */
    ROUND_TRIP(D, "{'messages':[{'role':'user','content':'Weather?'},"
                  "{'role':'assistant','content':null,'tool_calls':[{'id':'call_1','name':'get_weather','arguments':{'city':'Paris'}},"
                  "{'id':'call_2','name':'get_weather','arguments':{}}]},"
                  "{'role':'tool','tool_call_id':'call_1','name':'get_weather','content':'{\\'t\\':18}','is_error':false},"
                  "{'role':'tool','tool_call_id':'call_2','name':'get_weather','content':'no city','is_error':false},"
                  "{'role':'user','content':'Thanks'}],'system':'Be brief.','tools':[" WEATHER "],"
                  "'params':{'max_tokens':10,'temperature':0,'think':false}}", NULL);
    /* streaming unless "stream": false; a result pairs by tool_call_id when it has one */
    ACCEPT_IS(D, "{'model':'q','messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':'',"
                 "'tool_calls':[{'id':'a','function':{'name':'f','arguments':{}}},{'id':'b','function':{'name':'f','arguments':{'x':1}}}]},"
                 "{'role':'tool','tool_call_id':'b','content':'two'},{'role':'tool','tool_name':'f','content':'one'}]}",
              "{'messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':null,'tool_calls':["
              "{'id':'a','name':'f','arguments':{}},{'id':'b','name':'f','arguments':{'x':1}}]},"
              "{'role':'tool','tool_call_id':'b','name':'f','content':'two','is_error':false},"
              "{'role':'tool','tool_call_id':'a','name':'f','content':'one','is_error':false}]}", 1);
    ACCEPT_IS(D, "{'model':'q','stream':false,'messages':[{'role':'user','content':'Hi'}]}",
              "{'messages':[{'role':'user','content':'Hi'}]}", 0);
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'Hi','images':['AAAA']}]}", "messages[0].images: only text is supported");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'Hi'},{'role':'tool','tool_name':'f','content':'r'}]}",
                 "messages[1]: a tool result that answers no earlier call of f");
    ACCEPT_FAILS(D, "{'messages':[{'role':'bot','content':'Hi'}]}", "messages[0].role: 'bot' is not system, user, assistant or tool");
    ACCEPT_FAILS(D, "{'messages':[],'stream':'no'}", "stream: must be true or false");
}

TEST(serve_answer)
{
    ANSWER_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'Hi there'},'finish_reason':'stop',"
                            "'usage':{'input_tokens':2,'output_tokens':5}}",
              "{'model':'m-served','created_at':'2023-11-14T22:13:20Z','message':{'role':'assistant','content':'Hi there'},"
              "'done':true,'done_reason':'stop','total_duration':0,'load_duration':0,'prompt_eval_count':2,"
              "'prompt_eval_duration':0,'eval_count':5,'eval_duration':0}");
    ANSWER_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':null,'tool_calls':[{'id':'call_1','name':'f','arguments':{'a':1}}]},"
                            "'finish_reason':'tool_calls','usage':{'input_tokens':2,'output_tokens':5}}",
              "{'model':'m-served','created_at':'2023-11-14T22:13:20Z','message':{'role':'assistant','content':'',"
              "'tool_calls':[{'function':{'name':'f','arguments':{'a':1}}}]},"
              "'done':true,'done_reason':'stop','total_duration':0,'load_duration':0,'prompt_eval_count':2,"
              "'prompt_eval_duration':0,'eval_count':5,'eval_duration':0}");
}

#define HEAD "{\"model\":\"m-served\",\"created_at\":\"2023-11-14T22:13:20Z\",\"message\":{\"role\":\"assistant\",\"content\":"
#define TAIL ",\"done\":true,\"done_reason\":\"stop\",\"total_duration\":0,\"load_duration\":0,\"prompt_eval_count\":2," \
             "\"prompt_eval_duration\":0,\"eval_count\":5,\"eval_duration\":0}\n"

TEST(serve_stream)
{
    STREAM_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'It is sunny in Paris','tool_calls':["
                            "{'id':'c1','name':'f','arguments':{'a':1}}]},'finish_reason':'tool_calls',"
                            "'usage':{'input_tokens':2,'output_tokens':5}}",
              HEAD "\"It is sunny in P\"},\"done\":false}\n"
              HEAD "\"aris\"},\"done\":false}\n"
              HEAD "\"\",\"tool_calls\":[{\"function\":{\"name\":\"f\",\"arguments\":{\"a\":1}}}]},\"done\":false}\n"
              HEAD "\"\"}" TAIL);
    CHECK_STR(D->stream_type, "application/x-ndjson");
    cJSON *o = D->error_body(404, "model x not found");
    CHECK(same("error", o, "{'error':'model x not found'}", __LINE__));
    cJSON_Delete(o);
}

int main(void)
{
    RUN(serve_accept);
    RUN(serve_answer);
    RUN(serve_stream);
    RUN(bodies);
    RUN(answers);
    return TEST_DONE();
}
