-- forge: the module scripts get from `require "forge"`.
-- Host functions come from forge.core; every other forge.<name> module (json, re, schema, ...)
-- loads on first use, so `forge.json.encode(...)` works without a separate require.
local core = require "forge.core"

local forge = {}
for k, v in pairs(core) do forge[k] = v end

local function tagged(kind, t)
  return setmetatable(t, { __forge_kind = kind, __name = "forge." .. kind })
end

local function kind_of(v)
  local mt = type(v) == "table" and getmetatable(v)
  return type(mt) == "table" and mt.__forge_kind or nil
end
forge.kind_of = kind_of

local function need(def, what)
  if type(def) ~= "table" then error(what .. ": expected a table", 3) end
  if type(def.name) ~= "string" or def.name == "" then error(what .. ": needs a non-empty string name", 3) end
end

-- forge.tool{name, description, schema | parameters, run | mock | responses | template | http, ...}
function forge.tool(def)
  need(def, "forge.tool")
  return tagged("tool", def)
end

-- forge.mcp{name, command = {...} | url = "...", token_env, prefix, tools = {...}, timeout_ms}:
-- the tools of an MCP server (started over stdio with --allow-exec, or reached over Streamable
-- HTTP with --allow-net), as forge.tool tables that call it (docs/mcp.md).
function forge.mcp(def)
  need(def, "forge.mcp")
  local list = require("forge.mcp_host").connect(def)
  for i, t in ipairs(list) do list[i] = tagged("tool", t) end
  return list
end

-- forge.load_tools(path): tools from a JSON file (relative to the script): one definition, an
-- array of them (forge's or OpenAI `tools`), or an MCP tools/list result {"tools": [...]}.
function forge.load_tools(path)
  local text, err = forge.read_file(path)
  if not text then error("forge.load_tools: " .. err, 2) end
  local doc = forge.json.decode(text, path)
  local list = doc
  if forge.json.type(doc) == "object" then
    list = forge.json.type(doc.tools) == "array" and doc.tools or { doc }
  end
  local out = {}
  for i, def in ipairs(list) do
    local t = def["function"] or def
    if type(t) ~= "table" or type(t.name) ~= "string" then
      error(("forge.load_tools: %s: tools[%d] has no name"):format(path, i), 2)
    end
    out[i] = tagged("tool", def)
  end
  return out
end

-- forge.verifier{name, tools = {...} | "*", order, verify = fn | schema = {...} | pattern = {...}}
-- Registered verifiers apply to every suite that does not list its own.
local verifiers = {}
function forge.verifier(def)
  need(def, "forge.verifier")
  if verifiers[def.name] then error("forge.verifier: '" .. def.name .. "' is already defined", 2) end
  verifiers[def.name] = true
  verifiers[#verifiers + 1] = def
  return tagged("verifier", def)
end
function forge.verifiers() return { table.unpack(verifiers) } end

-- forge.assertion(name, fn): a custom assertion for eval files' "custom" (docs/assertions.md).
forge.assertion = require("forge.eval").assertion

-- forge.scripted{rules...}: the offline model (see docs/scripted-model.md).
function forge.scripted(rules) return require("forge.scripted").new(rules) end

-- forge.evals(path, ...): the cases of eval files (JSON, or YAML when a path ends in .yaml or
-- .yml; paths relative to the script), in order, validated as `forge run` validates them.
function forge.evals(...)
  local cases = {}
  for i = 1, select("#", ...) do
    local path = select(i, ...)
    local text, err = forge.read_file(path)
    if not text then error("forge.evals: " .. err, 2) end
    local ok, list = pcall(require("forge.eval").cases, text, path)
    if not ok then error("forge.evals: " .. tostring(list), 2) end
    for _, c in ipairs(list) do
      cases[#cases + 1] = c
    end
  end
  return cases
end

-- forge.agent{id, description, model, system, tools, verifiers, policy, params, on_request,
-- on_tool_call, on_done}: an agent `forge serve --agent FILE` serves (docs/service.md).
function forge.agent(def)
  if type(def) ~= "table" then error("forge.agent: expected a table", 2) end
  if type(def.id) ~= "string" or def.id == "" then error("forge.agent: needs a non-empty string id", 2) end
  return tagged("agent", def)
end

-- forge.suite{name, model, tools, verifiers, cases, policy, approve, system, params, gates}
function forge.suite(def)
  need(def, "forge.suite")
  return tagged("suite", def)
end

return setmetatable(forge, {
  __index = function(t, name)
    if type(name) ~= "string" then return nil end
    local ok, mod = pcall(require, "forge." .. name)
    if not ok then
      if tostring(mod):find("not found", 1, true) then return nil end
      error(mod, 2)
    end
    rawset(t, name, mod)
    return mod
  end,
})
