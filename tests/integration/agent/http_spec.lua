-- forge.http against the test server (port in forge.args[1]); run with --allow-net.
local t = require "forge.testing"
local forge = require "forge"
local base = "http://127.0.0.1:" .. forge.args[1]

t.case("get decodes JSON", function()
  local res = assert(forge.http.get(base .. "/weather/Oslo", { headers = { ["X-Api-Key"] = "xyz" } }))
  t.eq(res.status, 200)
  t.eq(res.json.city, "Oslo")
  t.eq(res.json.key, "xyz")
  t.eq(res.content_type, "application/json")
end)

t.case("post with a table body; non-2xx is a response, not an error", function()
  local res = assert(forge.http.post(base .. "/nope", { a = 1 }))
  t.eq(res.status, 404)
  t.eq(res.body, "not here")
  t.eq(res.json, nil)
end)

t.case("timeouts and refused connections return nil, message", function()
  local res, err = forge.http.request { url = base .. "/slow", timeout_ms = 200 }
  t.eq(res, nil)
  t.eq(err, "HTTP request timed out after 200 ms")
  res, err = forge.http.get("http://127.0.0.1:1/")
  t.eq(res, nil)
  t.ok(err:find("HTTP request failed", 1, true), err)
end)

t.case("misuse raises", function()
  t.raises(function() forge.http.get("ftp://x") end, "url must be an http:// or https:// URL")
  t.raises(function() forge.http.request { url = base, timeout_ms = 0 } end, "must be positive")
end)

t.case("header injection, bad methods and NUL bytes are refused before anything is sent", function()
  local url = base .. "/weather/Oslo"
  t.raises(function() forge.http.get(url, { headers = { ["X-A"] = "v\r\nX-Injected: 1" } }) end,
           "the value of header 'X-A' contains a carriage return")
  t.raises(function() forge.http.get(url, { headers = { ["X-A"] = "v\nX-Injected: 1" } }) end,
           "the value of header 'X-A' contains a line feed")
  t.raises(function() forge.http.get(url, { headers = { ["X-A"] = "v\0w" } }) end,
           "the value of header 'X-A' contains a NUL byte")
  t.raises(function() forge.http.get(url, { headers = { ["X-A: b\r\nX"] = "v" } }) end,
           "is not an HTTP token")
  t.raises(function() forge.http.request { url = url, method = "GET / HTTP/1.1\r\nX: y" } end,
           "method must be an HTTP token")
  t.raises(function() forge.http.request { url = url .. "\0/../admin" } end,
           "url must be a string without NUL bytes")
  t.raises(function() forge.http.request { url = url, timeout_ms = "soon" } end,
           "timeout_ms must be an integer")
  -- options are read raw, and get/post never write to the script's table
  local opts = setmetatable({}, { __index = function() error("metamethod ran") end,
                                  __newindex = function() error("metamethod ran") end })
  local res = assert(forge.http.get(url, opts))
  t.eq(res.status, 200)
  t.eq(rawget(opts, "url"), nil)
end)

t.done()
