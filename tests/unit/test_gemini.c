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

/* ---- the server side ---- */

TEST(serve_accept)
{
    ROUND_TRIP(D, "{'system':'Be brief.','messages':[{'role':'user','content':'Weather?'},"
                  "{'role':'assistant','content':'Checking.','tool_calls':[{'id':'c1','name':'get_weather','arguments':{'city':'Paris'}},"
                  "{'id':'c2','name':'get_weather','arguments':{}}]},"
                  "{'role':'tool','tool_call_id':'c1','name':'get_weather','content':'{\\'t\\':18}','is_error':false},"
                  "{'role':'tool','tool_call_id':'c2','name':'get_weather','content':'no city','is_error':true},"
                  "{'role':'user','content':'Thanks'}],'tools':[" WEATHER "],'tool_choice':{'name':'get_weather'},"
                  "'params':{'max_tokens':10,'temperature':0}}", NULL);
    /* snake_case spellings; calls without ids are named as forge names them, and results pair by
     * name; a thought signature keeps the model's parts to send back */
    ACCEPT_IS(D, "{'system_instruction':{'parts':[{'text':'Short.'}]},'contents':["
                 "{'role':'user','parts':[{'text':'Hi'}]},"
                 "{'role':'model','parts':[{'functionCall':{'name':'now','args':{}},'thought_signature':'x','thoughtSignature':'S'},"
                 "{'functionCall':{'name':'later','args':{'h':2}}}]},"
                 "{'role':'user','parts':[{'functionResponse':{'name':'later','response':{'output':{'at':'2pm'}}}},"
                 "{'functionResponse':{'name':'now','response':{'time':'noon'}}}]}],"
                 "'tools':[{'function_declarations':[{'name':'now','parameters':{'type':'object'}},{'name':'later'}]}],"
                 "'tool_config':{'function_calling_config':{'mode':'ANY','allowed_function_names':['now']}},"
                 "'generation_config':{'maxOutputTokens':5}}",
              "{'system':'Short.','messages':[{'role':'user','content':'Hi'},"
              "{'role':'assistant','content':null,'tool_calls':[{'id':'call_1','name':'now','arguments':{}},"
              "{'id':'call_2','name':'later','arguments':{'h':2}}],'provider_data':{'gemini':{'parts':["
              "{'functionCall':{'name':'now','args':{}},'thought_signature':'x','thoughtSignature':'S'},"
              "{'functionCall':{'name':'later','args':{'h':2}}}]}}},"
              "{'role':'tool','tool_call_id':'call_2','name':'later','content':'{\\'at\\':\\'2pm\\'}','is_error':false},"
              "{'role':'tool','tool_call_id':'call_1','name':'now','content':'{\\'time\\':\\'noon\\'}','is_error':false}],"
              "'tools':[{'name':'now','parameters':{'type':'object'}},{'name':'later'}],'tool_choice':{'name':'now'},"
              "'params':{'max_tokens':5}}", 0);
    ACCEPT_FAILS(D, "{'contents':{}}", "contents: must be an array");
    ACCEPT_FAILS(D, "{'contents':[{'role':'user','parts':[{'inlineData':{'mimeType':'image/png','data':''}}]}]}",
                 "contents[0].parts[0]: only text, functionCall (model turns) and functionResponse (user turns) parts are supported");
    ACCEPT_FAILS(D, "{'contents':[{'role':'user','parts':[{'functionResponse':{'name':'f','response':{}}}]}]}",
                 "contents[0].parts[0].functionResponse: no earlier call of 'f' is left to answer");
    ACCEPT_FAILS(D, "{'contents':[{'role':'tool','parts':[]}]}", "contents[0].role: must be user or model");
    ACCEPT_FAILS(D, "{'contents':[{'role':'user','parts':[{'text':'x'}]}],'toolConfig':{'functionCallingConfig':{'mode':'SOME'}}}",
                 "toolConfig.functionCallingConfig.mode: must be AUTO, ANY, NONE or VALIDATED");
}

TEST(serve_answer)
{
    ANSWER_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'Hi there'},'finish_reason':'stop',"
                            "'usage':{'input_tokens':2,'output_tokens':5}}",
              "{'candidates':[{'content':{'role':'model','parts':[{'text':'Hi there'}]},'finishReason':'STOP','index':0}],"
              "'usageMetadata':{'promptTokenCount':2,'candidatesTokenCount':5,'totalTokenCount':7},"
              "'modelVersion':'m-served','responseId':'id7'}");
    /* calls carry forge's ids; parse() keeps the parts with calls in provider_data, so the
     * model's own parts (here the same) are what answer() sends */
    ANSWER_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'Let me check.','tool_calls':[{'id':'c1','name':'get_weather',"
                            "'arguments':{'city':'Paris'}}],'provider_data':{'gemini':{'parts':[{'text':'Let me check.'},"
                            "{'functionCall':{'id':'c1','name':'get_weather','args':{'city':'Paris'}}}]}}},"
                            "'finish_reason':'tool_calls','usage':{'input_tokens':3,'output_tokens':4}}",
              "{'candidates':[{'content':{'role':'model','parts':[{'text':'Let me check.'},"
              "{'functionCall':{'id':'c1','name':'get_weather','args':{'city':'Paris'}}}]},'finishReason':'STOP','index':0}],"
              "'usageMetadata':{'promptTokenCount':3,'candidatesTokenCount':4,'totalTokenCount':7},"
              "'modelVersion':'m-served','responseId':'id7'}");
}

#define CHUNK(parts, tail) "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[" parts "]}" tail "}\n\n"
#define MID ",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3},\"modelVersion\":\"m-served\",\"responseId\":\"id7\""
#define LAST ",\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,\"candidatesTokenCount\":4," \
             "\"totalTokenCount\":7},\"modelVersion\":\"m-served\",\"responseId\":\"id7\""

TEST(serve_stream)
{
    /* text in pieces, a function call whole in its own chunk, the last chunk with the reason */
    STREAM_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'It is sunny in Paris','tool_calls':["
                            "{'id':'c1','name':'f','arguments':{'a':1}}]},'finish_reason':'tool_calls',"
                            "'usage':{'input_tokens':3,'output_tokens':4}}",
              CHUNK("{\"text\":\"It is sunny in P\"}", MID)
              CHUNK("{\"text\":\"aris\"}", MID)
              CHUNK("{\"functionCall\":{\"id\":\"c1\",\"name\":\"f\",\"args\":{\"a\":1}}}", LAST));
    STREAM_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':null},'finish_reason':'stop','usage':{'input_tokens':3,'output_tokens':4}}",
              CHUNK("{\"text\":\"\"}", LAST));
}

TEST(serve_errors)
{
    cJSON *o = D->error_body(429, "slow down");
    CHECK(same("429", o, "{'error':{'code':429,'message':'slow down','status':'RESOURCE_EXHAUSTED'}}", __LINE__));
    cJSON_Delete(o);
    o = D->error_body(404, "no model");
    CHECK_STR(forge_json_str(cJSON_GetObjectItem(o, "error"), "status"), "NOT_FOUND");
    cJSON_Delete(o);
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
