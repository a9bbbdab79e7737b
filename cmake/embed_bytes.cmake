# forge_embed_bytes(FILE VAR LEN): VAR = the bytes of FILE as C initializer text
# ("0x2d,0x2d,...", 16 a line), LEN = their count. Shared by embed.cmake and embed_files.cmake.
function(forge_embed_bytes file var len)
  file(READ ${file} hex HEX)
  string(LENGTH "${hex}" hexlen)
  math(EXPR n "${hexlen} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
  set(${var} "${bytes}" PARENT_SCOPE)
  set(${len} ${n} PARENT_SCOPE)
endfunction()
