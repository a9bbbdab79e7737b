local forge = require "forge"
return forge.scripted { { calls = { { name = "lookup" } }, reply = "done" } }
