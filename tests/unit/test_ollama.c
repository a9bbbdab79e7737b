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

int main(void)
{
    RUN(bodies);
    RUN(answers);
    return TEST_DONE();
}
