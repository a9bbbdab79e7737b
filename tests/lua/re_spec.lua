-- forge.re: PCRE2 with flags, captures, gmatch, gsub.
local t = require "forge.testing"
local re = require("forge").re

t.case("match returns captures or the whole match", function()
  t.eq({ re.match("key=value", "(\\w+)=(\\w+)") }, { "key", "value" })
  t.eq(re.match("abc123", "\\d+"), "123")
  t.eq(re.match("abc", "\\d+"), nil)
  t.eq(re.match("abcabc", "abc", "", 2), "abc")
  t.eq({ re.match("ab", "(x)?b") }, { false })
end)

t.case("find returns 1-based inclusive positions", function()
  t.eq({ re.find("hello world", "o w") }, { 5, 7 })
  t.eq({ re.find("hello world", "(w)(o)") }, { 7, 8, "w", "o" })
  t.eq(re.find("hello", "z"), nil)
  t.eq({ re.find("aXbX", "X", "", -2) }, { 4, 4 })
end)

t.case("flags", function()
  t.eq(re.test("HELLO", "hello"), false)
  t.eq(re.test("HELLO", "hello", "i"), true)
  t.eq(re.test("a\nb", "^b$"), false)
  t.eq(re.test("a\nb", "^b$", "m"), true)
  t.eq(re.test("a\nb", "a.b"), false)
  t.eq(re.test("a\nb", "a.b", "s"), true)
  t.eq(re.test("ab", "a b", "x"), true)
  t.eq(re.test("xab", "ab", "A"), false)
  t.raises(function() re.test("a", "a", "q") end, "unknown regex flag 'q'")
end)

t.case("unicode: characters, case folding, classes", function()
  t.eq(re.match("café", "^.{4}$"), "café")
  t.eq(re.test("ÉCOLE", "école", "i"), true)
  t.eq(re.match("naïve", "\\w+"), "naïve")
end)

t.case("gmatch iterates, including empty matches", function()
  local words = {}
  for w in re.gmatch("one two  three", "\\w+") do words[#words + 1] = w end
  t.eq(words, { "one", "two", "three" })
  local pairs_ = {}
  for k, v in re.gmatch("a=1,b=2", "(\\w)=(\\d)") do pairs_[#pairs_ + 1] = k .. v end
  t.eq(pairs_, { "a1", "b2" })
  local n = 0
  for _ in re.gmatch("abc", "x*") do n = n + 1 end
  t.eq(n, 4)
end)

t.case("gsub with strings, functions, tables and a maximum", function()
  t.eq({ re.gsub("a-b-c", "-", "+") }, { "a+b+c", 2 })
  t.eq({ re.gsub("john smith", "(\\w+) (\\w+)", "$2, $1") }, { "smith, john", 1 })
  t.eq({ re.gsub("a1b2", "\\d", function(d) return "<" .. d .. ">" end) }, { "a<1>b<2>", 2 })
  t.eq({ re.gsub("$x $y", "\\$(\\w)", { x = "1" }) }, { "1 $y", 2 })
  t.eq({ re.gsub("aaa", "a", "b", "", 2) }, { "bba", 2 })
  t.eq({ re.gsub("abc", "", "-") }, { "-a-b-c-", 4 })
  t.eq({ re.gsub("a$b", "\\$", "$$") }, { "a$b", 1 })
  t.raises(function() re.gsub("ab", "(a)", "$2") end, "refers to group $2")
end)

t.case("global matching over a large subject validates its UTF-8 once", function()
  local s = string.rep("héllo wörld ", 100000)
  local _, n = re.gsub(s, "ö", "o")
  t.eq(n, 100000)
  local k = 0
  for _ in re.gmatch(s, "\\w+") do k = k + 1 end
  t.eq(k, 200000)
  t.raises(function() re.gsub("a\255b", "a", "x") end, "UTF-8 error")
  t.raises(function() for _ in re.gmatch("a\255b", "a") do end end, "UTF-8 error")
end)

t.case("any number of distinct patterns: past the cache they compile per call", function()
  local n = 0
  for i = 1, 5000 do if re.test("x" .. i, "^x" .. i .. "$") then n = n + 1 end end
  t.eq(n, 5000)
  local k = 0
  for _ in re.gmatch("a1 a2", "a9999|a\\d") do k = k + 1 end
  t.eq(k, 2)
  t.eq({ re.gsub("abc", "b(?#new)", "X") }, { "aXc", 1 })
  t.eq(re.match("k=v", "(\\w)=(\\w)(?#fresh)", "", 1), "k")
end)

t.case("invalid patterns name the problem", function()
  t.raises(function() re.test("a", "(") end, "invalid regex '(' at offset 1")
end)

t.done()
