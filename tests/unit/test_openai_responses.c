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

/* ---- the server side ---- */

TEST(serve_accept)
{
    ROUND_TRIP(D, "{'system':'Be brief.','messages':[{'role':'user','content':'Weather?'},"
                  "{'role':'assistant','content':'Checking.','tool_calls':[{'id':'c1','name':'get_weather','arguments':{'city':'Paris'}},"
                  "{'id':'c2','name':'get_weather','arguments':{}}]},"
                  "{'role':'tool','tool_call_id':'c1','name':'get_weather','content':'{\\'t\\':18}','is_error':false},"
                  "{'role':'tool','tool_call_id':'c2','name':'get_weather','content':'no city','is_error':false},"
                  "{'role':'user','content':'Thanks'}],'tools':[" WEATHER "],'tool_choice':{'name':'get_weather'},"
                  "'parallel_tool_calls':false,'params':{'max_tokens':50,'temperature':0}}", NULL);
    ACCEPT_IS(D, "{'model':'m','input':'Hi','stream':true}", "{'messages':[{'role':'user','content':'Hi'}]}", 1);
    /* what the SDK sends back: output items with ids and status; reasoning travels with the
     * output that followed it; instructions and developer messages make the system prompt */
    ACCEPT_IS(D, "{'model':'m','instructions':'A.','store':false,'input':[{'role':'developer','content':'B.'},"
                 "{'role':'user','content':[{'type':'input_text','text':'Hi'}]},"
                 "{'type':'reasoning','id':'rs_1','summary':[]},"
                 "{'type':'message','id':'msg_1','status':'completed','role':'assistant','content':[{'type':'output_text','text':'On it.','annotations':[]}]},"
                 "{'type':'function_call','id':'fc_1','call_id':'k1','name':'f','arguments':'{\\'a\\':1}','status':'completed'},"
                 "{'type':'function_call','id':'fc_2','call_id':'k2','name':'g','arguments':'{}','status':'completed'},"
                 "{'type':'function_call_output','call_id':'k1','output':'one'},"
                 "{'type':'function_call_output','call_id':'k2','output':[{'type':'input_text','text':'two'}]}]}",
              "{'messages':[{'role':'user','content':'Hi'},{'role':'assistant','content':'On it.',"
              "'provider_data':{'openai_responses':{'reasoning':[{'type':'reasoning','id':'rs_1','summary':[]}]}},"
              "'tool_calls':[{'id':'k1','name':'f','arguments':{'a':1}},{'id':'k2','name':'g','arguments':{}}]},"
              "{'role':'tool','tool_call_id':'k1','name':'f','content':'one','is_error':false},"
              "{'role':'tool','tool_call_id':'k2','name':'g','content':'two','is_error':false}],"
              "'system':'A.\\n\\nB.','params':{'store':false}}", 0);
    ACCEPT_FAILS(D, "{'input':'Hi','previous_response_id':'resp_1'}",
                 "previous_response_id: forge serve keeps no responses; send the whole conversation in input (as with store: false)");
    ACCEPT_FAILS(D, "{'input':'Hi','tools':[{'type':'web_search'}]}", "tools[0]: only function tools are supported (type 'web_search')");
    ACCEPT_FAILS(D, "{'input':7}", "input: must be a string or an array of items");
    ACCEPT_FAILS(D, "{'input':[{'type':'item_reference','id':'x'}]}",
                 "input[0]: only messages, function_call, function_call_output and reasoning items are supported (type 'item_reference')");
    ACCEPT_FAILS(D, "{'input':[{'role':'user','content':[{'type':'input_image','image_url':'x'}]}]}",
                 "input[0].content[0]: only text parts are supported (type 'input_image')");
}

TEST(serve_answer)
{
    ANSWER_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'system':'S.'}",
              "{'message':{'role':'assistant','content':'Hi there'},'finish_reason':'stop','usage':{'input_tokens':2,'output_tokens':5}}",
              "{'id':'id7','object':'response','created_at':1700000000,'status':'completed','error':null,'incomplete_details':null,"
              "'instructions':'S.','model':'m-served','output':[{'type':'message','id':'msg_id7','status':'completed',"
              "'role':'assistant','content':[{'type':'output_text','text':'Hi there','annotations':[]}]}],"
              "'parallel_tool_calls':true,'tool_choice':'auto','tools':[],"
              "'usage':{'input_tokens':2,'input_tokens_details':{'cached_tokens':0},'output_tokens':5,"
              "'output_tokens_details':{'reasoning_tokens':0},'total_tokens':7}}");
    ANSWER_IS(D, "{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'f'}],'tool_choice':'required'}",
              "{'message':{'role':'assistant','content':null,'tool_calls':[{'id':'k1','name':'f','arguments':{'a':1}}]},"
              "'finish_reason':'tool_calls','usage':{'input_tokens':2,'output_tokens':5}}",
              "{'id':'id7','object':'response','created_at':1700000000,'status':'completed','error':null,'incomplete_details':null,"
              "'instructions':null,'model':'m-served','output':[{'type':'function_call','id':'fc_id7_0','call_id':'k1','name':'f',"
              "'arguments':'{\\'a\\':1}','status':'completed'}],'parallel_tool_calls':true,'tool_choice':'required',"
              "'tools':[{'type':'function','name':'f','description':null,'parameters':{},'strict':false}],"
              "'usage':{'input_tokens':2,'input_tokens_details':{'cached_tokens':0},'output_tokens':5,"
              "'output_tokens_details':{'reasoning_tokens':0},'total_tokens':7}}");
    ANSWER_IS(D, USER_ONLY, "{'message':{'role':'assistant','content':'Hel'},'finish_reason':'length','usage':{'input_tokens':1,'output_tokens':1}}",
              "{'id':'id7','object':'response','created_at':1700000000,'status':'incomplete','error':null,"
              "'incomplete_details':{'reason':'max_output_tokens'},'instructions':null,'model':'m-served','output':["
              "{'type':'message','id':'msg_id7','status':'completed','role':'assistant','content':[{'type':'output_text','text':'Hel',"
              "'annotations':[]}]}],'parallel_tool_calls':true,'tool_choice':'auto','tools':[],"
              "'usage':{'input_tokens':1,'input_tokens_details':{'cached_tokens':0},'output_tokens':1,"
              "'output_tokens_details':{'reasoning_tokens':0},'total_tokens':2}}");
}

/* The events of a stream: "event:" names and the "type" and "sequence_number" of each data line
 * agree; returns the data objects in order. */
static cJSON *events(const char *text)
{
    cJSON *arr = cJSON_CreateArray();
    const char *p = text;
    while (*p) {
        char name[64];
        const char *nl = strchr(p, '\n');
        if (strncmp(p, "event: ", 7) || !nl || (size_t)(nl - p - 7) >= sizeof name)
            break;
        snprintf(name, sizeof name, "%.*s", (int)(nl - p - 7), p + 7);
        p = nl + 1;
        const char *end = strstr(p, "\n\n");
        if (strncmp(p, "data: ", 6) || !end)
            break;
        struct forge_err e;
        cJSON *d = forge_json_parse(p + 6, (size_t)(end - p - 6), "event", &e);
        if (!d || strcmp(forge_json_str(d, "type"), name) ||
            forge_json_num(d, "sequence_number", -1) != cJSON_GetArraySize(arr)) {
            cJSON_Delete(d);
            break;
        }
        cJSON_AddItemToArray(arr, d);
        p = end + 2;
    }
    if (*p) {
        fprintf(stderr, "malformed stream at: %.80s\n", p);
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

TEST(serve_stream)
{
    struct forge_err e;
    struct forge_buf b;
    forge_buf_init(&b, 0);
    cJSON *req = J("{'messages':[{'role':'user','content':'Hi'}],'tools':[{'name':'f'}]}");
    cJSON *resp = J("{'message':{'role':'assistant','content':'It is sunny in Paris','tool_calls':["
                    "{'id':'k1','name':'f','arguments':{'city':'Paris','days':3}}]},'finish_reason':'tool_calls',"
                    "'usage':{'input_tokens':2,'output_tokens':5}}");
    CHECK_INT(D->stream(req, resp, &SERVE_INFO, &b, &e), 0);
    cJSON *evs = events(b.data), *ev;
    CHECK(evs != NULL);
    static const char *const types[] = {
        "response.created", "response.in_progress",
        "response.output_item.added", "response.content_part.added", "response.output_text.delta",
        "response.output_text.delta", "response.output_text.done", "response.content_part.done",
        "response.output_item.done",
        "response.output_item.added", "response.function_call_arguments.delta",
        "response.function_call_arguments.delta", "response.function_call_arguments.done", "response.output_item.done",
        "response.completed"};
    CHECK_INT(cJSON_GetArraySize(evs), (int)(sizeof types / sizeof types[0]));
    int i = 0;
    struct forge_buf text, args;
    forge_buf_init(&text, 0);
    forge_buf_init(&args, 0);
    cJSON_ArrayForEach(ev, evs) {
        const char *type = forge_json_str(ev, "type");
        if (i < (int)(sizeof types / sizeof types[0]))
            CHECK_STR(type, types[i]);
        if (!strcmp(type, "response.output_text.delta"))
            forge_buf_adds(&text, forge_json_str(ev, "delta"));
        if (!strcmp(type, "response.function_call_arguments.delta"))
            forge_buf_adds(&args, forge_json_str(ev, "delta"));
        i++;
    }
    /* the deltas add up to what the done events and the final response say */
    CHECK_STR(text.data, "It is sunny in Paris");
    CHECK_STR(args.data, "{\"city\":\"Paris\",\"days\":3}");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(evs, 6), "text"), "It is sunny in Paris");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(evs, 12), "arguments"), "{\"city\":\"Paris\",\"days\":3}");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(evs, 4), "item_id"), "msg_id7");
    CHECK_STR(forge_json_str(cJSON_GetArrayItem(evs, 10), "item_id"), "fc_id7_0");
    CHECK_INT((int)forge_json_num(cJSON_GetArrayItem(evs, 10), "output_index", -1), 1);
    CHECK(same("created", forge_json_at(cJSON_GetArrayItem(evs, 0), "response"),
               "{'id':'id7','object':'response','created_at':1700000000,'status':'in_progress','error':null,"
               "'incomplete_details':null,'instructions':null,'model':'m-served','output':[],'parallel_tool_calls':true,"
               "'tool_choice':'auto','tools':[{'type':'function','name':'f','description':null,'parameters':{},'strict':false}],"
               "'usage':null}", __LINE__));
    cJSON *done = NULL, *back = NULL;
    CHECK_INT(D->answer(req, resp, &SERVE_INFO, &done, &e), 0);
    CHECK(forge_json_equal(forge_json_at(cJSON_GetArrayItem(evs, 14), "response"), done));
    CHECK(forge_json_equal(forge_json_at(cJSON_GetArrayItem(evs, 13), "item"), forge_json_at(done, "output[1]")));
    CHECK_INT(D->parse(req, forge_json_at(cJSON_GetArrayItem(evs, 14), "response"), &back, &e), 0);
    CHECK(forge_json_equal(forge_json_at(back, "message"), forge_json_at(resp, "message")));
    cJSON_Delete(back);
    cJSON_Delete(done);
    cJSON_Delete(evs);
    cJSON_Delete(req);
    cJSON_Delete(resp);
    forge_buf_free(&text);
    forge_buf_free(&args);
    forge_buf_free(&b);
    CHECK_STR(D->stream_type, "text/event-stream");
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
