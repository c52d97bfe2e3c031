# The disk cache (src/cache): round trips, damaged and foreign files, concurrent writers, the
# size bound and GPGPU_CACHE=off. No GL: these run in milliseconds.
gpgpu_add_test(cache_test ${CMAKE_CURRENT_LIST_DIR}/cache_test.cpp)
