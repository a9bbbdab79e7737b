local forge = require "forge"
return forge.scripted { { reply = "done" } }
