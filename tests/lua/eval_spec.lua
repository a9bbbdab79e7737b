-- forge.assertion / forge.eval: registering custom eval assertions.
local t = require "forge.testing"
local forge = require "forge"

t.case("assertions register by name, in order", function()
  forge.assertion("first", function(run, expected) return true end)
  forge.eval.assertion("second", function(run, expected) return 0.5 end)
  t.eq(forge.eval.assertions(), { "first", "second" })
end)

t.case("a name registers once", function()
  t.raises(function() forge.assertion("first", function() return true end) end,
    'forge.assertion: "first" is already registered')
end)

t.case("arguments are checked", function()
  t.raises(function() forge.assertion("x", 42) end, "function expected")
  t.raises(function() forge.assertion(nil, function() end) end, "string expected")
  t.raises(function() forge.assertion("", function() end) end, "a custom assertion needs a non-empty name")
end)

t.done()
