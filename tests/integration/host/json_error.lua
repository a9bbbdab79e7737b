local forge = require "forge"
forge.json.decode('{\n  "a": [1, 2,\n  ]\n}')
