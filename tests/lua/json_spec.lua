-- forge.json: decode/encode, null, empty array vs object, key order, errors.
local t = require "forge.testing"
local json = require("forge").json

t.case("round trip keeps empty arrays and objects apart", function()
  local s = '{"a":[],"b":{},"c":[{}],"d":[[]]}'
  t.eq(json.encode(json.decode(s)), s)
  t.eq(json.type(json.decode("[]")), "array")
  t.eq(json.type(json.decode("{}")), "object")
end)

t.case("null is a sentinel", function()
  local v = json.decode('{"x":null,"y":[null,1]}')
  t.ok(v.x == json.null)
  t.ok(v.y[1] == json.null)
  t.eq(tostring(json.null), "null")
  t.eq(json.encode({ a = json.null }), '{"a":null}')
  t.eq(json.encode(json.null), "null")
  t.eq(json.type(json.null), "null")
end)

t.case("object key order is kept, pairs follows it, sort_keys sorts", function()
  local v = json.decode('{"z":1,"a":2,"m":3}')
  t.eq(json.encode(v), '{"z":1,"a":2,"m":3}')
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  t.eq(keys, { "z", "a", "m" })
  v.b = 4
  t.eq(json.encode(v), '{"z":1,"a":2,"m":3,"b":4}')
  v.a = nil
  t.eq(json.encode(v), '{"z":1,"m":3,"b":4}')
  t.eq(json.encode(v, { sort_keys = true }), '{"b":4,"m":3,"z":1}')
end)

t.case("plain tables: sequences are arrays, string keys objects (sorted)", function()
  t.eq(json.encode({ 1, "two", true }), '[1,"two",true]')
  t.eq(json.encode({ b = 1, a = { c = 2 } }), '{"a":{"c":2},"b":1}')
  t.eq(json.encode({}), "{}")
  t.eq(json.encode(json.array {}), "[]")
  t.eq(json.encode(json.object { }), "{}")
end)

t.case("numbers print as JavaScript prints them", function()
  t.eq(json.encode({ 0.1 + 0.2, 1e21, 1.5, 10, -0.0, 1e-7 }), "[0.30000000000000004,1e+21,1.5,10,0,1e-7]")
  t.eq(math.type(json.decode("3")), "integer")
  t.eq(math.type(json.decode("3.5")), "float")
end)

t.case("pretty output", function()
  t.eq(json.encode({ a = { 1 }, b = {} }, { pretty = true }), '{\n  "a": [\n    1\n  ],\n  "b": {}\n}')
end)

t.case("values JSON cannot hold are errors naming the path", function()
  t.raises(function() json.encode({ f = print }) end, ".f: a function value JSON cannot hold")
  t.raises(function() json.encode({ 1, 2, nil, 4 }) end, "not a sequence")
  t.raises(function() json.encode({ [1] = 1, x = 2 }) end, "mixes integer and string keys")
  t.raises(function() json.encode(0 / 0) end, "NaN or infinity")
  local cyc = {}; cyc.self = cyc
  t.raises(function() json.encode(cyc) end, "nested deeper than 1000 levels")
  -- the place is exact, and a long one keeps its first 511 characters
  local ok, err = pcall(json.encode, { a = { { b = { 1, print } } } })
  t.eq(ok, false)
  t.eq(err:match("%.a.*"), ".a[0].b[1]: a function value JSON cannot hold")
  ok, err = pcall(json.encode, cyc)
  t.eq(err:match("%.self.*"), string.rep(".self", 103):sub(1, 511) .. ": nested deeper than 1000 levels (a table that contains itself?)")
  ok, err = pcall(json.encode, { k = { [string.rep("x", 600)] = print } })
  t.eq(err:match("%.k.*"), (".k." .. string.rep("x", 600)):sub(1, 511) .. ": a function value JSON cannot hold")
end)

t.case("malformed JSON raises with line and column", function()
  t.raises(function() json.decode('{"a": }') end, "<input>:1:7: invalid JSON")
  t.raises(function() json.decode('[1,\n2,\nx]') end, "<input>:3:1: invalid JSON")
  t.raises(function() json.decode('') end, "found end of input")
  t.raises(function() json.decode('[1] 2') end, "unexpected text after the value")
end)

t.case("unicode strings survive", function()
  local s = json.decode('"caf\\u00e9 \\ud83d\\ude00"')
  t.eq(s, "café 😀")
  t.eq(json.encode(s), '"café 😀"')
end)

t.done()
