# Install rules: `cmake --install build --prefix P` puts the executable in P/bin and the data it
# ships in P/share/hsalit (the litmus library, the mapping tables, the target descriptions and
# the JSON schemas), where an installed hsalit finds them beside itself (cli/src/bundled_data.hpp);
# the documentation goes to P/share/doc/hsalit (docs/install.md). The paths are relative, so a
# prefix can be moved after installing.
set(HSALIT_DATA_DESTINATION share/hsalit)

# The build folder mirrors the installed layout (build/bin/hsalit, build/share/hsalit linking to
# the sources), so that the same lookup serves a build and an installed prefix.
set(HSALIT_BUILD_DATA_DIR ${CMAKE_BINARY_DIR}/share/hsalit)
file(MAKE_DIRECTORY ${HSALIT_BUILD_DATA_DIR}/litmus)
foreach(pair IN ITEMS "litmus/library|litmus/library" "codegen/mappings|mappings" "codegen/targets.json|targets.json"
                      "docs/schemas|schemas" "docs/findings.json|findings.json")
  string(REPLACE "|" ";" pair "${pair}")
  list(GET pair 0 source)
  list(GET pair 1 link)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${source} ${HSALIT_BUILD_DATA_DIR}/${link} SYMBOLIC)
endforeach()

install(TARGETS hsalit RUNTIME DESTINATION bin)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/litmus/library DESTINATION ${HSALIT_DATA_DESTINATION}/litmus)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/codegen/mappings DESTINATION ${HSALIT_DATA_DESTINATION})
install(FILES ${PROJECT_SOURCE_DIR}/codegen/targets.json DESTINATION ${HSALIT_DATA_DESTINATION})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/schemas DESTINATION ${HSALIT_DATA_DESTINATION})
install(FILES ${PROJECT_SOURCE_DIR}/docs/findings.json DESTINATION ${HSALIT_DATA_DESTINATION})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/hsalit)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/hsalit/docs)

# The bash completion and, with help2man (Debian: help2man), the man pages, generated from the
# built executable's --help texts into the build folder's share/ (the installed layout) and
# installed from there. Without help2man the build goes on without man pages.
find_program(HSALIT_HELP2MAN help2man)
if(NOT HSALIT_HELP2MAN)
  message(STATUS "help2man not found: building without man pages")
endif()
set(HSALIT_COMPLETION ${CMAKE_BINARY_DIR}/share/bash-completion/completions/hsalit)
set(HSALIT_MAN_DIR ${CMAKE_BINARY_DIR}/share/man/man1)
add_custom_command(
  OUTPUT ${HSALIT_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -DHSALIT=$<TARGET_FILE:hsalit> -DVERSION=${PROJECT_VERSION}
          -DTARGETS_JSON=${PROJECT_SOURCE_DIR}/codegen/targets.json -DMAPPINGS_DIR=${PROJECT_SOURCE_DIR}/codegen/mappings
          -DCOMPLETION=${HSALIT_COMPLETION} -DMAN_DIR=${HSALIT_MAN_DIR} -DHELP2MAN=${HSALIT_HELP2MAN}
          -DWORK_DIR=${CMAKE_BINARY_DIR}/help-files -P ${PROJECT_SOURCE_DIR}/cmake/help_files.cmake
  DEPENDS hsalit ${PROJECT_SOURCE_DIR}/cmake/help_files.cmake ${PROJECT_SOURCE_DIR}/cmake/hsalit-completion.bash.in
          ${PROJECT_SOURCE_DIR}/codegen/targets.json
  COMMENT "Generating the bash completion and man pages from --help"
  VERBATIM)
add_custom_target(hsalit_help_files ALL DEPENDS ${HSALIT_COMPLETION})
install(FILES ${HSALIT_COMPLETION} DESTINATION share/bash-completion/completions)
install(DIRECTORY ${HSALIT_MAN_DIR} DESTINATION share/man OPTIONAL)
