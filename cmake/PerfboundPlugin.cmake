# PerfboundPlugin.cmake - perfbound_add_plugin(): build a plugin library the
# way the host expects it (in-tree and out-of-tree alike).
#
#   perfbound_add_plugin(<target> SOURCES a.cpp b.cpp [OUTPUT_DIR dir] [NO_MANIFEST])
#
# - builds a MODULE library linked to perfbound::sdk with hidden visibility,
#   so the only exported symbol is perfbound_plugin_negotiate;
# - writes the manifest <lib>.pbplugin.json next to it after every build
#   (`perfbound plugin manifest`), so the host can list and lint with the
#   plugin without loading it. PERFBOUND_EXECUTABLE names the perfbound
#   binary that writes it (the in-tree target, or the installed program).
function(perfbound_add_plugin target)
  cmake_parse_arguments(ARG "NO_MANIFEST" "OUTPUT_DIR" "SOURCES" ${ARGN})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE perfbound::sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX "lib"
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
      message(FATAL_ERROR "perfbound_add_plugin(${target}): set PERFBOUND_EXECUTABLE to the perfbound program to write manifests, or pass NO_MANIFEST")
    endif()
    add_custom_command(TARGET ${target} POST_BUILD
      COMMAND "${_pb_exe}" --no-builtin-plugins -q plugin manifest "$<TARGET_FILE:${target}>"
      COMMENT "Writing plugin manifest for ${target}"
      VERBATIM)
  endif()
endfunction()
