# PerfboundPlugin.cmake - perfbound_add_plugin(): build a plugin library the
# way the host expects it (in-tree and out-of-tree alike).
#
#   perfbound_add_plugin(<target> SOURCES a.cpp b.c ... [OUTPUT_DIR dir] [NO_MANIFEST])
#
# - builds a MODULE library with hidden visibility for C and C++ alike, so
#   the only exported symbol is perfbound_plugin_negotiate (PB_EXPORT);
# - links it to perfbound::sdk (the C ABI, the header-only C++ SDK and
#   nlohmann_json) when any source is C++, and to perfbound::abi (the C
#   headers under abi/include/perfbound, nothing else) when every source is
#   C: a pure C plugin needs no C++ compiler flags, SDK or JSON library;
# - writes the manifest <lib>.pbplugin.json next to it after every build
#   (`perfbound plugin manifest`), so the host can list and lint with the
#   plugin without loading it. The manifest is written by the perfbound
#   program of the package that find_package(perfbound) found (the build
#   tree's bin/perfbound or the installed one); PERFBOUND_EXECUTABLE
#   overrides it.
function(perfbound_add_plugin target)
  cmake_parse_arguments(ARG "NO_MANIFEST" "OUTPUT_DIR" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "perfbound_add_plugin(${target}): no SOURCES given")
  endif()
  set(_pb_cxx OFF)
  foreach(_pb_src IN LISTS ARG_SOURCES)
    if(_pb_src MATCHES "\\.(cpp|cc|cxx|c\\+\\+|C|CPP)$")
      set(_pb_cxx ON)
    endif()
  endforeach()
  add_library(${target} MODULE ${ARG_SOURCES})
  if(_pb_cxx)
    if(NOT TARGET nlohmann_json::nlohmann_json)
      message(FATAL_ERROR "perfbound_add_plugin(${target}): the C++ SDK (perfbound::sdk) needs nlohmann_json 3.10 or newer, "
                          "which was not found (Debian: nlohmann-json3-dev). A plugin written in C needs only the C ABI.")
    endif()
    target_link_libraries(${target} PRIVATE perfbound::sdk)
  else()
    target_link_libraries(${target} PRIVATE perfbound::abi)
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIR}")
  elseif(DEFINED PERFBOUND_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${PERFBOUND_PLUGIN_OUTPUT_DIR}")
  endif()
  target_link_options(${target} PRIVATE "LINKER:--no-undefined")
  if(NOT ARG_NO_MANIFEST)
    if(TARGET perfbound)
      set(_pb_exe "$<TARGET_FILE:perfbound>")
      add_dependencies(${target} perfbound)
    elseif(PERFBOUND_EXECUTABLE)
      set(_pb_exe "${PERFBOUND_EXECUTABLE}")
    else()
      message(FATAL_ERROR "perfbound_add_plugin(${target}): no perfbound program to write the manifest with: the package "
                          "found at ${perfbound_DIR} has no bin/perfbound. Set PERFBOUND_EXECUTABLE to one, or pass NO_MANIFEST")
    endif()
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${_pb_exe}" --no-builtin-plugins -q plugin manifest "$<TARGET_FILE:${target}>"
      COMMENT "Writing plugin manifest for ${target}"
      VERBATIM)
  endif()
endfunction()
