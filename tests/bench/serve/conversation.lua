-- wrk script: each connection plays a scripted one-call conversation over and over: the
-- question (answered with a tool call), then the question with the tool's result (answered with
-- text). STREAM=1 asks for streamed answers.
local stream = os.getenv("STREAM") == "1" and ',"stream":true' or ""
local first = '{"model":"m","messages":[{"role":"user","content":"What is the weather in Paris?"}]' .. stream .. '}'
local second = '{"model":"m","messages":[{"role":"user","content":"What is the weather in Paris?"},'
  .. '{"role":"assistant","content":null,"tool_calls":[{"id":"call_1_1","type":"function",'
  .. '"function":{"name":"get_weather","arguments":"{\\"city\\":\\"Paris\\"}"}}]},'
  .. '{"role":"tool","tool_call_id":"call_1_1","content":"{\\"temp_c\\":21,\\"condition\\":\\"sunny\\"}"}]'
  .. stream .. '}'
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  return wrk.format(nil, "/v1/chat/completions", nil, n % 2 == 1 and first or second)
end
