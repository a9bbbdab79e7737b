-- The tools the MCP conformance suite's server scenarios call (@modelcontextprotocol/conformance),
-- written as forge tools. A tool that returns a CallToolResult ({content = {...}}) sends it as it is.
local forge = require "forge"

local png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
local wav = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="

return {
  forge.tool { name = "test_simple_text", description = "Returns simple text.",
    run = function() return "This is a simple text response for testing." end },
  forge.tool { name = "test_error_handling", description = "Always fails.",
    run = function() error("This tool intentionally returns an error for testing", 0) end },
  forge.tool { name = "test_image_content", description = "Returns an image.",
    run = function() return { content = { { type = "image", data = png, mimeType = "image/png" } } } end },
  forge.tool { name = "test_audio_content", description = "Returns audio.",
    run = function() return { content = { { type = "audio", data = wav, mimeType = "audio/wav" } } } end },
  forge.tool { name = "test_embedded_resource", description = "Returns an embedded resource.",
    run = function()
      return { content = { { type = "resource", resource = { uri = "test://embedded-resource", mimeType = "text/plain",
                                                             text = "This is an embedded resource content." } } } }
    end },
  forge.tool { name = "test_multiple_content_types", description = "Returns text, an image and a resource.",
    run = function()
      return { content = {
        { type = "text", text = "Multiple content types test:" },
        { type = "image", data = png, mimeType = "image/png" },
        { type = "resource", resource = { uri = "test://mixed-content-resource", mimeType = "application/json",
                                          text = '{"test":"data","value":123}' } } } }
    end },
  forge.tool { name = "test_tool_with_logging", description = "Sends log messages while it runs.",
    run = function()
      forge.log.info("Tool execution started")
      forge.log.info("Tool processing data")
      forge.log.info("Tool execution completed")
      return "Logging test completed."
    end },
  forge.tool { name = "test_tool_with_progress", description = "Reports its progress.",
    run = function()
      for _, p in ipairs { 0, 50, 100 } do forge.progress(p, 100) end
      return "Progress test completed."
    end },
  forge.tool { name = "json_schema_2020_12_tool", description = "Tool with JSON Schema 2020-12 features",
    schema = {
      ["$schema"] = "https://json-schema.org/draft/2020-12/schema",
      type = "object",
      ["$defs"] = { address = { type = "object", properties = { street = { type = "string" }, city = { type = "string" } } } },
      properties = { name = { type = "string" }, address = { ["$ref"] = "#/$defs/address" } },
      additionalProperties = false,
    },
    run = function(args) return { ok = true } end },
}
