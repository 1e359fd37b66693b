# The differential check as a library (tests/oracle/check.hpp, generator.hpp,
# driver.hpp) and its reproduction tool: included by tests/oracle (the ctest
# suites) and by tests/fuzz (the fuzz preset builds no tests).
if(NOT TARGET perfbound_oracle_check)
  set(PB_ORACLE_CHECK_DIR "${PROJECT_SOURCE_DIR}/tests/oracle")
  add_library(perfbound_oracle_check STATIC
    "${PB_ORACLE_CHECK_DIR}/check.cpp" "${PB_ORACLE_CHECK_DIR}/critical_path_check.cpp" "${PB_ORACLE_CHECK_DIR}/generator.cpp" "${PB_ORACLE_CHECK_DIR}/driver.cpp")
  target_include_directories(perfbound_oracle_check PUBLIC "${PB_ORACLE_CHECK_DIR}")
  target_link_libraries(perfbound_oracle_check PUBLIC perfbound_hivm_oracle perfbound_hivm_core perfbound_models_core perfbound_host
    PRIVATE perfbound_warnings)
  target_compile_definitions(perfbound_oracle_check PRIVATE PB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")

  add_executable(perfbound_hivm_oracle_check "${PB_ORACLE_CHECK_DIR}/check_main.cpp" "${PB_ORACLE_CHECK_DIR}/no_trim.cpp")
  target_link_libraries(perfbound_hivm_oracle_check PRIVATE perfbound_oracle_check perfbound_warnings)
endif()
