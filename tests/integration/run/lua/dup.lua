local forge = require "forge"
forge.assertion("x", function() return true end)
forge.assertion("x", function() return true end)
