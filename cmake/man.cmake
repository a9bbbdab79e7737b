# Man pages, generated from forge's own help text after the binary is built (cmake/gen_man.py),
# and the shell completions, which read the same help text at completion time: the three never
# disagree. Installed to man1 and to the standard completion folders.
find_program(FORGE_PYTHON3 python3 REQUIRED)
set(FORGE_MAN_DIR ${CMAKE_BINARY_DIR}/man)
add_custom_command(
  OUTPUT ${FORGE_MAN_DIR}/forge.1
  COMMAND ${FORGE_PYTHON3} ${CMAKE_SOURCE_DIR}/cmake/gen_man.py $<TARGET_FILE:forge> ${FORGE_MAN_DIR}
  DEPENDS forge ${CMAKE_SOURCE_DIR}/cmake/gen_man.py
  COMMENT "Generating man pages from forge help")
add_custom_target(man ALL DEPENDS ${FORGE_MAN_DIR}/forge.1)
install(DIRECTORY ${FORGE_MAN_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 FILES_MATCHING PATTERN "*.1")
install(FILES ${CMAKE_SOURCE_DIR}/completions/forge.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME forge)
install(FILES ${CMAKE_SOURCE_DIR}/completions/_forge
        DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
