-- A tools file (forge run --tools) or assertions file (--assertions) whose top level never ends.
while true do end
