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
                      "docs/schemas|schemas")
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
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/hsalit)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/hsalit/docs)
