local forge = require "forge"
return forge.scripted { { calls = { { name = "pay" } }, reply = "done" } }
