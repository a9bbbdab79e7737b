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

int main(void)
{
    RUN(bodies);
    RUN(answers);
    return TEST_DONE();
}
