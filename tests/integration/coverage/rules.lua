-- A scripted "model" for forge gen evals: it answers each request with a case holding exactly
-- the expect fragment the request asks for. Two gaps get bad answers on purpose:
--   search_news's golden case: no JSON at first, a good case when told why (the retry path);
--   send_email.priority = "normal": a case with a misspelt key, every time (a gap left open).
local forge = require "forge"

local function draft(task)
  if task:find('set to "normal"', 1, true) then
    return '{"input": {"message": "Send it, normal priority"}, "expect": {"toolsCaled": ["send_email"]}}'
  end
  local frag = task:match("Its expect must contain (.*)%.$")
  frag = frag:gsub("%] and \"", '], "')
  local tool = task:match('"([%w_]+)"')
  return ('Here is the case:\n```json\n{"description": "drafted for %s", "input": {"message": "A request about %s"}, '
          .. '"expect": {%s, "responseNonEmpty": true}}\n```'):format(tool, tool, frag)
end

-- Every answer is decided from the request (the first user message); a retry is turn 2, 3, ...
local function answer(ctx)
  local task = ctx.messages[1].content
  if ctx.turn == 1 and task:find('must call the tool "search_news"', 1, true) then
    return { reply = "I would ask about the news." }
  end
  return { reply = draft(task) }
end

return forge.scripted { { steps = { answer, answer, answer, answer } } }
