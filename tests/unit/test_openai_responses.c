/* OpenAI responses: request bodies and answers. */
#include "dialect_cases.h"

static const struct forge_dialect *D = &forge_dialect_openai_responses;

TEST(bodies)
{
    BODY_IS(D, USER_ONLY, "{'model':'m1','input':[{'role':'user','content':'Hi'}]}");
    BODY_IS(D, HISTORY,
            "{'model':'m1','instructions':'Be brief.','input':[{'role':'user','content':'Weather?'},"
            "{'type':'function_call','call_id':'c1','name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'},"
            "{'type':'function_call','call_id':'c2','name':'get_weather','arguments':'{}'},"
            "{'type':'function_call_output','call_id':'c1','output':'{\\'t\\':18}'},"
            "{'type':'function_call_output','call_id':'c2','output':'Error: no city'},"
            "{'role':'user','content':'Thanks'}],"
            "'tools':[{'type':'function','name':'get_weather','description':'Weather.',"
            "'parameters':{'type':'object','properties':{'city':{'type':'string'}}},'strict':false}]}");
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'}],'tool_choice':{'name':'now'},"
               "'parallel_tool_calls':false,'params':{'max_tokens':64,'temperature':0,'store':false}}",
            "{'model':'m1','input':[{'role':'user','content':'Hi'}],"
            "'tools':[{'type':'function','name':'now','parameters':{'type':'object','properties':{}},'strict':false}],"
            "'tool_choice':{'type':'function','name':'now'},'parallel_tool_calls':false,"
            "'max_output_tokens':64,'temperature':0,'store':false}");
    /* Reasoning items come back before the calls they led to; assistant text is an item. */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':'Let me look.',"
               "'tool_calls':[{'id':'k','name':'now','arguments':{}}],"
               "'provider_data':{'openai_responses':{'reasoning':[{'type':'reasoning','id':'rs_1','summary':[]}]}}},"
               "{'role':'tool','tool_call_id':'k','content':'12:00'}],'tools':[{'name':'now'}]}",
            "{'model':'m1','input':[{'role':'user','content':'Hi'},{'type':'reasoning','id':'rs_1','summary':[]},"
            "{'role':'assistant','content':'Let me look.'},"
            "{'type':'function_call','call_id':'k','name':'now','arguments':'{}'},"
            "{'type':'function_call_output','call_id':'k','output':'12:00'}],"
            "'tools':[{'type':'function','name':'now','parameters':{'type':'object','properties':{}},'strict':false}]}");
}

TEST(answers)
{
    PARSE_IS(D, USER_ONLY,
             "{'id':'resp_1','status':'completed','output':[{'type':'reasoning','id':'rs_9','summary':[]},"
             "{'type':'function_call','id':'fc_1','call_id':'call_x','name':'f','arguments':'{\\'q\\':1}'},"
             "{'type':'function_call','id':'fc_2','call_id':'call_y','name':'g','arguments':'{}'}],"
             "'usage':{'input_tokens':30,'output_tokens':9}}",
             "{'message':{'role':'assistant','content':null,'tool_calls':[{'id':'call_x','name':'f','arguments':{'q':1}},"
             "{'id':'call_y','name':'g','arguments':{}}],"
             "'provider_data':{'openai_responses':{'reasoning':[{'type':'reasoning','id':'rs_9','summary':[]}]}}},"
             "'finish_reason':'tool_calls','usage':{'input_tokens':30,'output_tokens':9}}");
    PARSE_IS(D, USER_ONLY,
             "{'status':'completed','output':[{'type':'message','role':'assistant','content':["
             "{'type':'output_text','text':'Hello ','annotations':[]},{'type':'output_text','text':'there','annotations':[]}]}]}",
             "{'message':{'role':'assistant','content':'Hello there'},'finish_reason':'stop',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY,
             "{'status':'incomplete','incomplete_details':{'reason':'max_output_tokens'},'output':[]}",
             "{'message':{'role':'assistant','content':null},'finish_reason':'length',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY,
             "{'status':'incomplete','incomplete_details':{'reason':'content_filter'},'output':[{'type':'message',"
             "'content':[{'type':'refusal','refusal':'No.'}]}]}",
             "{'message':{'role':'assistant','content':'No.'},'finish_reason':'content_filter',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_FAILS(D, "{'status':'completed'}", "no output array");
    PARSE_FAILS(D, "{'status':'failed','output':[],'error':{'code':'server_error','message':'Boom'}}", "failed: Boom");
    PARSE_FAILS(D, "{'output':[{'type':'function_call','name':'f'}]}", "lacks name or call_id");
    ERRMSG_IS(D, "{'error':{'message':'No such model','type':'invalid_request_error'}}", "No such model");
}

int main(void)
{
    RUN(bodies);
    RUN(answers);
    return TEST_DONE();
}
