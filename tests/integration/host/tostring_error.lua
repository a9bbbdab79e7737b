-- The error object's __tostring raises while forge builds the message.
error(setmetatable({}, { __tostring = function() error("again") end }))
