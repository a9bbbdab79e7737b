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

/* ---- the server side ---- */

static const struct forge_answer_info INFO = {.model = "gpt-x", .id = "chatcmpl-forge7", .created = 1700000000};

TEST(serve_accept)
{
    ACCEPT_IS(D, "{'model':'m','messages':[{'role':'user','content':'Hi'}]}",
              "{'messages':[{'role':'user','content':'Hi'}]}", 0);
    /* system and developer messages join; text parts join; calls, results (named after their
     * call), tools, choice, parallel flag, stream options and params */
    ACCEPT_IS(D, "{'model':'m','stream':true,'stream_options':{'include_usage':true},'temperature':0.5,'seed':3,"
              "'messages':[{'role':'system','content':'A.'},{'role':'developer','content':[{'type':'text','text':'B.'}]},"
              "{'role':'user','content':[{'type':'text','text':'Wea'},{'type':'text','text':'ther?'}]},"
              "{'role':'assistant','content':null,'tool_calls':[{'id':'c1','type':'function',"
              "'function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\'}'}}]},"
              "{'role':'tool','tool_call_id':'c1','content':'{\\'t\\':18}'}],"
              "'tools':[{'type':'function','function':{'name':'get_weather','description':'Weather.',"
              "'parameters':{'type':'object'}}}],'tool_choice':{'type':'function','function':{'name':'get_weather'}},"
              "'parallel_tool_calls':false}",
              "{'messages':[{'role':'user','content':'Weather?'},"
              "{'role':'assistant','content':null,'tool_calls':[{'id':'c1','name':'get_weather','arguments':{'city':'Paris'}}]},"
              "{'role':'tool','tool_call_id':'c1','name':'get_weather','content':'{\\'t\\':18}','is_error':false}],"
              "'system':'A.\\n\\nB.','tools':[{'name':'get_weather','description':'Weather.','parameters':{'type':'object'}}],"
              "'tool_choice':{'name':'get_weather'},'parallel_tool_calls':false,'stream_options':{'include_usage':true},"
              "'params':{'temperature':0.5,'seed':3}}", 1);
    /* what build() sends, accept() reads back (results without the error flag, which the
     * OpenAI wire does not carry) */
    static const char req_text[] = "{'system':'Be brief.','messages':[{'role':'user','content':'Weather?'},"
                           "{'role':'assistant','content':'Looking.','tool_calls':[{'id':'c1','name':'get_weather',"
                           "'arguments':{'city':'Paris'}}]},{'role':'tool','tool_call_id':'c1','name':'get_weather',"
                           "'content':'18C','is_error':false},{'role':'assistant','content':'18C.'},"
                           "{'role':'user','content':'Thanks'}],'tools':[" WEATHER "],'tool_choice':'required',"
                           "'params':{'temperature':0}}";
    ROUND_TRIP(D, req_text, NULL);
}

TEST(serve_accept_errors)
{
    ACCEPT_FAILS(D, "{'model':'m'}", "messages: must be an array");
    ACCEPT_FAILS(D, "{'messages':[{'content':'x'}]}", "messages[0].role: must be a string");
    ACCEPT_FAILS(D, "{'messages':[{'role':'robot','content':'x'}]}",
                 "messages[0].role: 'robot' is not system, developer, user, assistant or tool");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':[{'type':'image_url','image_url':{'url':'x'}}]}]}",
                 "messages[0].content[0]: only text parts are supported (type 'image_url')");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':7}]}",
                 "messages[0].content: must be a string or an array of content parts");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'assistant','tool_calls':[{'id':'a','type':'function',"
                 "'function':{'name':'f','arguments':'[1]'}}]}]}",
                 "messages[1].tool_calls[0].function.arguments: not a JSON object");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'assistant','tool_calls':[{'type':'function',"
                 "'function':{'name':'f','arguments':'{}'}}]}]}",
                 "messages[1].tool_calls[0].id: must be a non-empty string");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'},{'role':'tool','tool_call_id':'z','content':'r'}]}",
                 "request: messages[1]: tool result for 'z' answers no earlier call");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'}],'tools':[{'type':'web_search'}]}",
                 "tools[0]: only {\"type\": \"function\", \"function\": {...}} tools are supported");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'}],'stream':'yes'}", "stream: must be true or false");
    ACCEPT_FAILS(D, "{'messages':[{'role':'user','content':'x'}],'tool_choice':{'type':'function'}}",
                 "tool_choice: must be auto, none, required or {\"type\": \"function\", \"function\": {\"name\": ...}}");
}

#define TEXT_RESP "{'message':{'role':'assistant','content':'It is 18\u00b0C in Paris today.'},'finish_reason':'stop'," \
                  "'usage':{'input_tokens':12,'output_tokens':9}}"
#define CALLS_RESP "{'message':{'role':'assistant','content':null,'tool_calls':[" \
                   "{'id':'c1','name':'get_weather','arguments':{'city':'Paris','units':'celsius'}}," \
                   "{'id':'c2','name':'now','arguments':{}}]},'finish_reason':'tool_calls'," \
                   "'usage':{'input_tokens':3,'output_tokens':4}}"

TEST(serve_answer)
{
    struct forge_err e;
    cJSON *req = J(USER_ONLY), *resp = J(CALLS_RESP), *out = NULL, *back = NULL;
    CHECK_INT(D->answer(req, resp, &INFO, &out, &e), 0);
    CHECK(same("answer", out,
               "{'id':'chatcmpl-forge7','object':'chat.completion','created':1700000000,'model':'gpt-x',"
               "'choices':[{'index':0,'message':{'role':'assistant','content':null,'refusal':null,'tool_calls':["
               "{'id':'c1','type':'function','function':{'name':'get_weather','arguments':'{\\'city\\':\\'Paris\\',\\'units\\':\\'celsius\\'}'}},"
               "{'id':'c2','type':'function','function':{'name':'now','arguments':'{}'}}]},"
               "'logprobs':null,'finish_reason':'tool_calls'}],"
               "'usage':{'prompt_tokens':3,'completion_tokens':4,'total_tokens':7}}", __LINE__));
    /* what the client side reads from it is the response again */
    CHECK_INT(D->parse(req, out, &back, &e), 0);
    CHECK(same("parse(answer)", back, CALLS_RESP, __LINE__));
    cJSON_Delete(resp);
    cJSON_Delete(out);
    cJSON_Delete(back);
    resp = J("{'message':{'role':'assistant','content':'Hel'},'finish_reason':'length'}");
    CHECK_INT(D->answer(req, resp, &INFO, &out, &e), 0);
    CHECK_STR(forge_json_str(forge_json_at(out, "choices[0]"), "finish_reason"), "length");
    CHECK_STR(forge_json_str(forge_json_at(out, "choices[0].message"), "content"), "Hel");
    cJSON_Delete(req);
    cJSON_Delete(resp);
    cJSON_Delete(out);
}

TEST(serve_stream)
{
    struct forge_err e;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *req = J("{'messages':[{'role':'user','content':'Hi'}],'stream_options':{'include_usage':true}}");
    cJSON *resp = J(TEXT_RESP);
    CHECK_INT(D->stream(req, resp, &INFO, &b, &e), 0);
#define H "{\"id\":\"chatcmpl-forge7\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,\"model\":\"gpt-x\","
#define C(delta, fin) "data: " H "\"choices\":[{\"index\":0,\"delta\":" delta ",\"logprobs\":null,\"finish_reason\":" fin "}],\"usage\":null}\n\n"
    /* text in pieces of at most 16 bytes, each ending on a character boundary */
    CHECK_STR(b.data, C("{\"role\":\"assistant\",\"content\":\"\"}", "null")
                      C("{\"content\":\"It is 18\u00b0C in P\"}", "null")
                      C("{\"content\":\"aris today.\"}", "null")
                      C("{}", "\"stop\"")
                      "data: " H "\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":9,\"total_tokens\":21}}\n\n"
                      "data: [DONE]\n\n");
#undef C
    cJSON_Delete(req);
    cJSON_Delete(resp);
    forge_buf_reset(&b);
    /* without include_usage: no usage member, no usage chunk; a call's id and name come first,
     * then its arguments in pieces, by index */
    req = J(USER_ONLY);
    resp = J(CALLS_RESP);
    CHECK_INT(D->stream(req, resp, &INFO, &b, &e), 0);
#define C(delta, fin) "data: " H "\"choices\":[{\"index\":0,\"delta\":" delta ",\"logprobs\":null,\"finish_reason\":" fin "}]}\n\n"
#define TC(x) "{\"tool_calls\":[" x "]}"
    CHECK_STR(b.data, C("{\"role\":\"assistant\",\"content\":\"\"}", "null")
                      C(TC("{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}"), "null")
                      C(TC("{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\\\"Paris\\\",\"}}"), "null")
                      C(TC("{\"index\":0,\"function\":{\"arguments\":\"\\\"units\\\":\\\"celsius\"}}"), "null")
                      C(TC("{\"index\":0,\"function\":{\"arguments\":\"\\\"}\"}}"), "null")
                      C(TC("{\"index\":1,\"id\":\"c2\",\"type\":\"function\",\"function\":{\"name\":\"now\",\"arguments\":\"\"}}"), "null")
                      C(TC("{\"index\":1,\"function\":{\"arguments\":\"{}\"}}"), "null")
                      C("{}", "\"tool_calls\"")
                      "data: [DONE]\n\n");
#undef C
#undef TC
#undef H
    cJSON_Delete(req);
    cJSON_Delete(resp);
    forge_buf_free(&b);
}

TEST(serve_errors)
{
    cJSON *o = D->error_body(401, "bad key");
    CHECK(same("401", o, "{'error':{'message':'bad key','type':'invalid_request_error','param':null,'code':'invalid_api_key'}}",
               __LINE__));
    cJSON_Delete(o);
    o = D->error_body(502, "upstream");
    CHECK(same("502", o, "{'error':{'message':'upstream','type':'server_error','param':null,'code':null}}", __LINE__));
    cJSON_Delete(o);
    CHECK_STR(D->stream_type, "text/event-stream");
}

/* Server-sent events framing (model/wire.c), as the WHATWG spec has it. */
TEST(sse_framing)
{
    static const char text[] = ": a comment\r\nevent: one\r\ndata: {\"a\":1}\r\n\r\n"
                               "data:x\ndata: y\nid: 7\n\n"
                               "event: three\rdata: z\r\r"
                               "data: cut";
    struct forge_sse it;
    forge_sse_init(&it, text, sizeof text - 1);
    CHECK_INT(forge_sse_next(&it), 1);
    CHECK_STR(it.event, "one");
    CHECK(forge_sse_data_is(&it, "{\"a\":1}"));
    CHECK_INT((int)it.offset, 0);
    CHECK_INT(forge_sse_next(&it), 1);
    CHECK_STR(it.event, "");
    CHECK(forge_sse_data_is(&it, "x\ny"));
    CHECK(it.data == it.buf.data); /* several data lines join with a newline; no space after the colon is kept */
    CHECK_INT(forge_sse_next(&it), 1);
    CHECK_STR(it.event, "three");
    CHECK(forge_sse_data_is(&it, "z"));
    CHECK(it.data >= text && it.data < text + sizeof text); /* one data line is read in place */
    CHECK_INT(forge_sse_next(&it), 0); /* an event without its blank line is not dispatched */
    forge_sse_free(&it);
    CHECK_INT(forge_sse_last(&it, text, sizeof text - 1 - 9), 1);
    CHECK(forge_sse_data_is(&it, "x\ny")); /* the CR-only event before the cut is not a \n blank line */
    forge_sse_free(&it);
    static const char done[] = "data: {}\n\ndata: [DONE]\n\n";
    CHECK_INT(forge_sse_last(&it, done, sizeof done - 1), 1);
    CHECK(forge_sse_data_is(&it, "[DONE]"));
    forge_sse_free(&it);
    CHECK_INT(forge_sse_last(&it, done, sizeof done - 3), 1); /* "[DONE]" not closed: the one before */
    CHECK(forge_sse_data_is(&it, "{}"));
    forge_sse_free(&it);
    CHECK_INT(forge_sse_last(&it, "data: x", 7), 0);
    forge_sse_free(&it);
}

int main(void)
{
    RUN(sse_framing);
    RUN(serve_accept);
    RUN(serve_accept_errors);
    RUN(serve_answer);
    RUN(serve_stream);
    RUN(serve_errors);
    RUN(bodies);
    RUN(malformed_arguments);
    RUN(checks);
    RUN(answers);
    return TEST_DONE();
}
