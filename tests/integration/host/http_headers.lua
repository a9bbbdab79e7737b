-- Sixty headers: each keeps a line on the Lua stack while the request runs, past the 20 slots a
-- C function may use without growing the stack. And a list instead of a map of headers.
-- (Port 1 on the loopback refuses the connection: no network is needed.)
local forge = require "forge"
local h = {}
for i = 1, 60 do h["X-H" .. i] = string.rep("v", 10) end
print(forge.http.request { url = "http://127.0.0.1:1/", headers = h, timeout_ms = 2000 } == nil)
print(pcall(forge.http.request, { url = "http://127.0.0.1:1/", headers = { "a", "b" } }))
local many = {}
for i = 1, 65 do many["X-H" .. i] = "v" end
print(pcall(forge.http.request, { url = "http://127.0.0.1:1/", headers = many }))
