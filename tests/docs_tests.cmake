# The API reference builds from include/gpgpu with no Doxygen warning: every public class,
# function and member documented (docs/api). scripts/test.sh runs scripts/check-docs.py (links,
# cited results, no development diary) before the build.
get_property(gpgpu_doxyfile GLOBAL PROPERTY GPGPU_DOXYFILE)
if(NOT gpgpu_doxyfile)
  return()
endif()
add_test(NAME docs_api COMMAND Doxygen::doxygen ${gpgpu_doxyfile}
         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}/docs/api)
set_tests_properties(docs_api PROPERTIES TIMEOUT 300)
