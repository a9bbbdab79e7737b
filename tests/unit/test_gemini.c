/* Gemini generateContent: request bodies and answers. */
#include "dialect_cases.h"

static const struct forge_dialect *D = &forge_dialect_gemini;

TEST(bodies)
{
    BODY_IS(D, USER_ONLY, "{'contents':[{'role':'user','parts':[{'text':'Hi'}]}]}");
    /* Without provider_data (a history built elsewhere) calls and responses carry forge's ids;
     * results are objects: output or error. */
    BODY_IS(D, HISTORY,
            "{'systemInstruction':{'parts':[{'text':'Be brief.'}]},'contents':["
            "{'role':'user','parts':[{'text':'Weather?'}]},"
            "{'role':'model','parts':[{'functionCall':{'id':'c1','name':'get_weather','args':{'city':'Paris'}}},"
            "{'functionCall':{'id':'c2','name':'get_weather','args':{}}}]},"
            "{'role':'user','parts':[{'functionResponse':{'id':'c1','name':'get_weather','response':{'output':{'t':18}}}},"
            "{'functionResponse':{'id':'c2','name':'get_weather','response':{'error':'no city'}}},{'text':'Thanks'}]}],"
            "'tools':[{'functionDeclarations':[{'name':'get_weather','description':'Weather.',"
            "'parametersJsonSchema':{'type':'object','properties':{'city':{'type':'string'}}}}]}]}");
    static const char *const forms[][2] = {
        {"'required'", "{'mode':'ANY'}"},
        {"'none'", "{'mode':'NONE'}"},
        {"'auto'", "{'mode':'AUTO'}"},
        {"{'name':'now'}", "{'mode':'ANY','allowedFunctionNames':['now']}"},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        char req[512], want[512];
        snprintf(req, sizeof req, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'now'},{'name':'later'}],"
                 "'tool_choice':%s,'parallel_tool_calls':false}", forms[i][0]);
        snprintf(want, sizeof want,
                 "{'contents':[{'role':'user','parts':[{'text':'Hi'}]}],"
                 "'tools':[{'functionDeclarations':[{'name':'now'},{'name':'later'}]}],"
                 "'toolConfig':{'functionCallingConfig':%s}}", forms[i][1]);
        BODY_IS(D, req, want);
    }
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'params':{'temperature':0,'max_tokens':10,'top_p':0.9,"
               "'stop':['x'],'seed':3,'thinkingConfig':{'thinkingBudget':0}}}",
            "{'contents':[{'role':'user','parts':[{'text':'Hi'}]}],'generationConfig':{'temperature':0,"
            "'maxOutputTokens':10,'topP':0.9,'stopSequences':['x'],'seed':3,'thinkingConfig':{'thinkingBudget':0}}}");
    /* The model's own parts go back verbatim (thought signatures); ids only where the model gave them;
     * a plain-text result is wrapped. */
    BODY_IS(D, "{'messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':null,"
               "'tool_calls':[{'id':'call_1','name':'now','arguments':{}},{'id':'fc9','name':'now','arguments':{'tz':'UTC'}}],"
               "'provider_data':{'gemini':{'parts':[{'functionCall':{'name':'now','args':{}},'thoughtSignature':'SIG'},"
               "{'functionCall':{'id':'fc9','name':'now','args':{'tz':'UTC'}}}]}}},"
               "{'role':'tool','tool_call_id':'call_1','content':'noon'},{'role':'tool','tool_call_id':'fc9','content':'[1,2]'}],"
               "'tools':[{'name':'now'}]}",
            "{'contents':[{'role':'user','parts':[{'text':'Hi'}]},"
            "{'role':'model','parts':[{'functionCall':{'name':'now','args':{}},'thoughtSignature':'SIG'},"
            "{'functionCall':{'id':'fc9','name':'now','args':{'tz':'UTC'}}}]},"
            "{'role':'user','parts':[{'functionResponse':{'name':'now','response':{'output':'noon'}}},"
            "{'functionResponse':{'id':'fc9','name':'now','response':{'output':[1,2]}}}]}],"
            "'tools':[{'functionDeclarations':[{'name':'now'}]}]}");
}

TEST(answers)
{
    PARSE_IS(D, HISTORY,
             "{'candidates':[{'content':{'role':'model','parts':[{'text':'thinking...','thought':true},{'text':'On it.'},"
             "{'functionCall':{'name':'f','args':{'a':1}},'thoughtSignature':'S1'},{'functionCall':{'id':'g7','name':'g','args':{}}}]},"
             "'finishReason':'STOP'}],'usageMetadata':{'promptTokenCount':12,'candidatesTokenCount':5,'thoughtsTokenCount':3}}",
             "{'message':{'role':'assistant','content':'On it.','tool_calls':[{'id':'call_3','name':'f','arguments':{'a':1}},"
             "{'id':'g7','name':'g','arguments':{}}],'provider_data':{'gemini':{'parts':[{'text':'thinking...','thought':true},"
             "{'text':'On it.'},{'functionCall':{'name':'f','args':{'a':1}},'thoughtSignature':'S1'},"
             "{'functionCall':{'id':'g7','name':'g','args':{}}}]}}},"
             "'finish_reason':'tool_calls','usage':{'input_tokens':12,'output_tokens':8}}");
    PARSE_IS(D, USER_ONLY, "{'candidates':[{'content':{'parts':[{'text':'Hi'}]},'finishReason':'MAX_TOKENS'}]}",
             "{'message':{'role':'assistant','content':'Hi'},'finish_reason':'length','usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY, "{'candidates':[{'finishReason':'SAFETY'}]}",
             "{'message':{'role':'assistant','content':null},'finish_reason':'content_filter',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY, "{'candidates':[{'content':{'parts':[]},'finishReason':'MALFORMED_FUNCTION_CALL'}]}",
             "{'message':{'role':'assistant','content':null},'finish_reason':'malformed_function_call',"
             "'usage':{'input_tokens':0,'output_tokens':0}}");
    PARSE_IS(D, USER_ONLY, "{'promptFeedback':{'blockReason':'SAFETY'},'usageMetadata':{'promptTokenCount':4}}",
             "{'message':{'role':'assistant','content':null},'finish_reason':'content_filter',"
             "'usage':{'input_tokens':4,'output_tokens':0}}");
    PARSE_FAILS(D, "{'usageMetadata':{}}", "no candidates");
    PARSE_FAILS(D, "{'candidates':[{'content':{'parts':[{'functionCall':{'args':{}}}]}}]}", "functionCall part has no name");
    ERRMSG_IS(D, "{'error':{'code':400,'message':'API key not valid.','status':'INVALID_ARGUMENT'}}", "API key not valid.");
}

int main(void)
{
    RUN(bodies);
    RUN(answers);
    return TEST_DONE();
}
