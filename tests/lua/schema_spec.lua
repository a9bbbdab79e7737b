-- forge.schema: compile, validate with errors, options, coercion.
local t = require "forge.testing"
local forge = require "forge"
local schema = forge.schema

local tool = {
  type = "object",
  properties = {
    city = { type = "string", minLength = 1 },
    days = { type = "integer", minimum = 1, maximum = 14 },
    unit = { enum = { "celsius", "fahrenheit" } },
  },
  required = { "city" },
  additionalProperties = false,
}

t.case("valid values return true alone", function()
  local v = schema.compile(tool)
  t.eq({ v:validate({ city = "Paris", days = 3 }) }, { true })
  t.eq(tostring(v), "forge.Schema (compiled)")
end)

t.case("invalid values return false and the errors", function()
  local v = schema.compile(tool)
  local ok, errors = v:validate({ city = "Paris", days = 30 })
  t.eq(ok, false)
  t.eq(errors, { {
    instanceLocation = "/days",
    keywordLocation = "/properties/days/maximum",
    error = "30 is greater than the maximum 14",
  } })
  local all = schema.compile(tool, { all_errors = true })
  local _, errs = all:validate(forge.json.decode('{"city": "", "wind": 1}'))
  -- errors come in the order of the instance's members
  t.eq(#errs, 2)
  t.eq(errs[1].keywordLocation, "/properties/city/minLength")
  t.eq(errs[2].error, "property 'wind' is not allowed")
end)

t.case("schemas may be JSON decoded, with draft and format options", function()
  local s = forge.json.decode('{"items": [{"type": "integer"}], "additionalItems": false}')
  t.raises(function() schema.compile(s) end, "forge.schema.compile: invalid schema at '/items': must be a schema")
  local v = schema.compile(s, { draft = "7" })
  t.eq(v:validate(forge.json.decode("[1]")), true)
  t.eq(v:validate(forge.json.decode("[1, 2]")), false)
  t.eq(schema.compile({ format = "email" }):validate("nope"), true)
  t.eq(schema.compile({ format = "email" }, { formats = true }):validate("nope"), false)
  t.raises(function() schema.compile(tool, { draft = "5" }) end, "opts.draft must be")
end)

t.case("remote references come from ref_dirs only", function()
  local s = { properties = { price = { ["$ref"] = "https://schemas.example.com/currency.json" } } }
  t.raises(function() schema.compile(s) end, "no --ref-dir maps its URL prefix")
  local v = schema.compile(s, { ref_dirs = { ["https://schemas.example.com/"] = "schema_refs" } })
  t.eq(v:validate({ price = "EUR" }), true)
  local ok, errs = v:validate({ price = "euro" })
  t.eq(ok, false)
  t.eq(errs[1].absoluteKeywordLocation, "https://schemas.example.com/currency.json#/pattern")
  t.raises(function() schema.compile(s, { ref_dirs = { ["https://x/"] = "/" } }) end, "ref_dirs")
end)

t.case("bad schemas raise with the location", function()
  t.raises(function() schema.compile({ type = "strin" }) end, "invalid schema at '/type': unknown type name")
  t.raises(function() schema.compile({ pattern = "(" }) end, "invalid regex '('")
end)

t.case("coerce repairs tool arguments and reports each change", function()
  local args, log = schema.coerce({ city = "Paris", days = "3", unit = " Celsius", note = forge.json.null }, tool)
  t.eq(args, { city = "Paris", days = 3, unit = "celsius" })
  t.eq(#log, 3)
  t.eq(log[1], { path = "/days", from = "3", to = 3, rule = "string-to-integer" })
  t.eq(log[2], { path = "/note", from = forge.json.null, rule = "drop-null" })
  t.eq(log[3].rule, "enum-match")
  t.eq(schema.compile(tool):validate(args), true)
end)

t.done()
