# Embeds text files (shaders, preset JSON) into the binary as C++ string constants, one custom
# command per file, so attnlab runs from any directory.
#
# attnlab_embed(OUT_VAR NAMESPACE ns FILES a.comp b.json ...) generates one .cpp per file under
# the build tree defining `extern const std::string_view ns::<identifier>` plus an index table
# `ns::files()` mapping the file's base name to its text.
set(ATTNLAB_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/EmbedFile.cmake)

function(attnlab_embed out_var)
  cmake_parse_arguments(E "" "NAMESPACE" "FILES" ${ARGN})
  set(generated)
  set(index_entries "")
  set(decls "")
  foreach(f ${E_FILES})
    get_filename_component(abs ${f} ABSOLUTE)
    get_filename_component(name ${f} NAME)
    string(MAKE_C_IDENTIFIER ${name} ident)
    set(out ${CMAKE_CURRENT_BINARY_DIR}/embedded/${E_NAMESPACE}_${ident}.cpp)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -DIN=${abs} -DOUT=${out} -DNS=${E_NAMESPACE} -DIDENT=${ident}
              -P ${ATTNLAB_EMBED_SCRIPT}
      DEPENDS ${abs} ${ATTNLAB_EMBED_SCRIPT}
      COMMENT "Embedding ${name}"
      VERBATIM)
    # Each defines its own `data` array: compiled alone, never in a unity batch.
    set_source_files_properties(${out} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
    list(APPEND generated ${out})
    string(APPEND decls "extern const std::string_view ${ident};\n")
    string(APPEND index_entries "    {\"${name}\", ${ident}},\n")
  endforeach()
  set(index ${CMAKE_CURRENT_BINARY_DIR}/embedded/${E_NAMESPACE}_index.cpp)
  file(WRITE ${index}.in
"// Generated: index of embedded files.\n#include <map>\n#include <string>\n#include <string_view>\nnamespace ${E_NAMESPACE} {\n${decls}\nconst std::map<std::string, std::string_view>& files() {\n  static const std::map<std::string, std::string_view> table{\n${index_entries}  };\n  return table;\n}\n}  // namespace ${E_NAMESPACE}\n")
  configure_file(${index}.in ${index} COPYONLY)
  list(APPEND generated ${index})
  set(${out_var} ${generated} PARENT_SCOPE)
endfunction()
