# Installs the build tree into a scratch prefix, then configures, builds and runs the consumer
# project against it with find_package(tilegemm). Run by CTest:
#   cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P consumer_test.cmake
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "consumer_test: ${var} not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(step)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer_test: '${ARGN}' failed (${rc}):\n${err}")
  endif()
endfunction()

step(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
if(NOT EXISTS "${prefix}/include/tilegemm/gemm.hpp")
  message(FATAL_ERROR "consumer_test: headers not installed")
endif()
step(${CMAKE_COMMAND} -S "${SOURCE_DIR}/tests/install/consumer" -B "${WORK_DIR}/build"
     "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
step(${CMAKE_COMMAND} --build "${WORK_DIR}/build")
step("${WORK_DIR}/build/consumer")
