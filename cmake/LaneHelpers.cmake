# lane_add_subdirs(): add every immediate subdirectory that has a CMakeLists.txt.
# Areas grow by adding a folder; no central list to edit.
function(lane_add_subdirs)
  file(GLOB children RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT children)
  foreach(child ${children})
    if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${child} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()

# lane_library(NAME [TORCH]): a static library from the .cpp files of the current folder.
function(lane_library name)
  cmake_parse_arguments(ARG "" "" "" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${CMAKE_BINARY_DIR}/generated)
endfunction()

# lane_python_importing(VAR MODULES): the first of python3 and /usr/bin/python3 that imports
# MODULES ("a, b.c": the first interpreter on PATH may be a private one without Debian's python3-*
# packages), else python3 (and the test says what is missing), in VAR.
function(lane_python_importing var module)
  set(found python3)
  foreach(candidate python3 /usr/bin/python3)
    execute_process(COMMAND ${candidate} -c "import ${module}" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
    if(rc EQUAL 0)
      set(found ${candidate})
      break()
    endif()
  endforeach()
  set(${var} ${found} PARENT_SCOPE)
endfunction()
