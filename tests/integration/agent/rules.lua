-- Rules for --model scripted:rules.lua: a plain list of rules.
return {
  { match = "paris", calls = { { name = "get_weather", arguments = { city = "Paris" } } },
    reply = "Paris: {{result.temp_c}}°C and {{result.condition}}." },
  { reply = "I only know Paris." },
}
