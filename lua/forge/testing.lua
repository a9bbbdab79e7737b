-- forge.testing: a small helper for specs written in Lua.
--   local t = require "forge.testing"
--   t.eq(actual, expected [, what])      deep equality; raises with both values on a mismatch
--   t.ok(cond [, what])
--   t.raises(fn, fragment [, what])      fn must raise an error whose text contains fragment
--   t.case(name, fn)                     runs fn, counts it, records failures, goes on
--   t.done()                             raises when any case failed; prints a summary
local json = require "forge.json"
local M = {}
local passed, failed = 0, {}

local function show(v)
  if type(v) == "table" then
    local ok, s = pcall(json.encode, v, { sort_keys = true })
    if ok then return s end
  end
  if type(v) == "string" then return string.format("%q", v) end
  return tostring(v)
end

local function deep_eq(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in next, a do if not deep_eq(v, rawget(b, k)) then return false end end
  for k in next, b do if rawget(a, k) == nil then return false end end
  return true
end

function M.eq(actual, expected, what)
  if not deep_eq(actual, expected) then
    error((what and (what .. ": ") or "") .. "expected " .. show(expected) .. ", got " .. show(actual), 2)
  end
end

function M.ok(cond, what)
  if not cond then error("check failed" .. (what and (": " .. what) or ""), 2) end
end

function M.raises(fn, fragment, what)
  local ok, err = pcall(fn)
  if ok then error((what and (what .. ": ") or "") .. "expected an error containing " .. show(fragment), 2) end
  if not tostring(err):find(fragment, 1, true) then
    error((what and (what .. ": ") or "") .. "expected an error containing " .. show(fragment) .. ", got " .. show(tostring(err)), 2)
  end
  return err
end

function M.case(name, fn)
  local ok, err = pcall(fn)
  if ok then
    passed = passed + 1
  else
    failed[#failed + 1] = name .. ": " .. tostring(err)
  end
end

function M.done()
  for _, f in ipairs(failed) do print("FAIL " .. f) end
  print(string.format("%d passed, %d failed", passed, #failed))
  if #failed > 0 then error(#failed .. " spec case(s) failed", 0) end
end

return M
