# Writes a C++ source that embeds data files (mapping tables, target descriptions) so that
# the hsalit binary carries the shipped tables; users still pass their own files with
# --mapping. Invoked at build time: cmake -DOUTPUT=... -DBASE=... -DFILES="a;b" -P this.
set(content "// Generated from the data files under codegen/; do not edit.\n#include \"embedded.hpp\"\n\nnamespace hsalit::codegen {\n\nconst std::vector<EmbeddedFile>& embedded_files() {\n  static const std::vector<EmbeddedFile> files = {\n")
foreach(file IN LISTS FILES)
  file(READ "${BASE}/${file}" data)
  string(FIND "${data}" ")hsalit_embed\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the embedding delimiter")
  endif()
  string(APPEND content "      {\"${file}\", R\"hsalit_embed(${data})hsalit_embed\"},\n")
endforeach()
string(APPEND content "  };\n  return files;\n}\n\n}  // namespace hsalit::codegen\n")
file(WRITE "${OUTPUT}.tmp" "${content}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
