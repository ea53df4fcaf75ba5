# SPDX-License-Identifier: GPL-3.0-or-later
#
# The one way to add a libFuzzer target (only with -DOPJIT_FUZZ=ON and clang):
#
#   opjit_add_fuzz_target(NAME SOURCES file.c...
#     [LIBS lib...] [INCLUDES dir...] [CORPUS dir] FLOOR n [ARGS flag...])
#
# Each project library in LIBS is linked as an instrumented copy
# (NAME_fuzz, built with -fsanitize=fuzzer-no-link,address,undefined, its
# own project dependencies instrumented too), so libFuzzer sees the
# branches of the code under test, not only the target's.  SOURCES may
# name sources under test that are in no library.  The ctest runs the
# target OPJIT_FUZZ_SECONDS over a corpus kept in the build tree plus the
# seeds in CORPUS, and fails when libFuzzer's final coverage ("cov:") is
# under FLOOR: set FLOOR to about 80% of what a good run reaches in that
# time, so that a target that stops reaching its code fails.  A few
# seconds of fuzzing find little, so the seeds alone must reach FLOOR
# (libFuzzer's "INITED cov:" over CORPUS and an empty directory): fuzz
# the target a minute or two into a scratch directory, then keep the
# inputs that reach new code, and only those, with
#   fuzz_NAME -merge=1 -use_counters=0 CORPUS SCRATCH
# (-use_counters=0: new edges, not new hit counts, so a few small files).

set(OPJIT_FUZZ_SECONDS 5 CACHE STRING "seconds each fuzz target runs under ctest")
# fuzz_targets: every fuzz target and what it links, and nothing else of
# the tree; test.sh builds only this in the fuzz build (the rest of the
# tree under clang is checked by scripts/check-clang.sh)
if(OPJIT_FUZZ AND NOT TARGET fuzz_targets)
  add_custom_target(fuzz_targets)
endif()
set(OPJIT_FUZZ_FLAGS -fsanitize=fuzzer-no-link,address,undefined
  -fno-omit-frame-pointer)

# Replace project libraries in a list of link items by their fuzz copies.
function(_opjit_fuzz_map out)
  set(mapped "")
  foreach(item ${ARGN})
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" bare "${item}")
    if(TARGET "${bare}")
      get_target_property(type "${bare}" TYPE)
      get_target_property(imported "${bare}" IMPORTED)
      if(type STREQUAL "STATIC_LIBRARY" AND NOT imported)
        opjit_fuzz_library("${bare}")
        list(APPEND mapped "${bare}_fuzz")
        continue()
      endif()
    endif()
    list(APPEND mapped "${item}")
  endforeach()
  set(${out} "${mapped}" PARENT_SCOPE)
endfunction()

# opjit_fuzz_library(TARGET): TARGET_fuzz, the same static library
# compiled with the fuzzer's coverage and the sanitizers.
function(opjit_fuzz_library target)
  if(TARGET ${target}_fuzz)
    return()
  endif()
  get_target_property(srcs ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(abs "")
  foreach(s ${srcs})
    if(IS_ABSOLUTE "${s}")
      list(APPEND abs "${s}")
    else()
      list(APPEND abs "${dir}/${s}")
    endif()
  endforeach()
  add_library(${target}_fuzz STATIC EXCLUDE_FROM_ALL ${abs})
  foreach(p INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS
      INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS
      INTERFACE_SYSTEM_INCLUDE_DIRECTORIES C_VISIBILITY_PRESET)
    get_target_property(v ${target} ${p})
    if(v)
      set_property(TARGET ${target}_fuzz PROPERTY ${p} "${v}")
    endif()
  endforeach()
  foreach(p LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(v ${target} ${p})
    if(v)
      _opjit_fuzz_map(m ${v})
      set_property(TARGET ${target}_fuzz PROPERTY ${p} "${m}")
    endif()
  endforeach()
  target_compile_options(${target}_fuzz PRIVATE ${OPJIT_FUZZ_FLAGS})
  # a source the library generates (protoc-c's, the page's header) is
  # made in the library's own directory, by the target its property
  # OPJIT_GENERATED_BY names
  get_target_property(gen ${target} OPJIT_GENERATED_BY)
  if(gen)
    add_dependencies(${target}_fuzz ${gen})
  endif()
endfunction()

function(opjit_add_fuzz_target name)
  cmake_parse_arguments(A "" "CORPUS;FLOOR" "SOURCES;LIBS;INCLUDES;ARGS"
    ${ARGN})
  if(NOT OPJIT_FUZZ)
    return()
  endif()
  if(NOT A_SOURCES OR NOT A_FLOOR)
    message(FATAL_ERROR "opjit_add_fuzz_target(${name}): SOURCES and FLOOR are needed")
  endif()
  _opjit_fuzz_map(libs ${A_LIBS})
  add_executable(${name} ${A_SOURCES})
  target_compile_options(${name} PRIVATE ${OPJIT_FUZZ_FLAGS})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(${name} PRIVATE ${libs})
  target_include_directories(${name} PRIVATE ${A_INCLUDES})
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  set(seeds "")
  if(A_CORPUS)
    set(seeds "${A_CORPUS}")
  endif()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=1
      bash "${PROJECT_SOURCE_DIR}/tests/fuzz/run.sh" $<TARGET_FILE:${name}>
      "${A_FLOOR}" "${OPJIT_FUZZ_SECONDS}"
      "${CMAKE_CURRENT_BINARY_DIR}/${name}-corpus" "${seeds}" ${A_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT 600)
  add_dependencies(fuzz_targets ${name})
endfunction()

# The earlier helper is gone: every target needs a coverage floor.
function(opjit_add_fuzz name)
  message(FATAL_ERROR "opjit_add_fuzz(${name}): use opjit_add_fuzz_target "
    "(tests/fuzz/OpjitFuzz.cmake), which needs a coverage FLOOR")
endfunction()
