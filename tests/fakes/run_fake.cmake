# Runs one fake program and compares its stdout with an expected file.
#   -DCMD=program;args  -DENV=VAR=value;...  -DEXPECT=file  -DRC=status
#   -DSONAME=libcudart.so.N  written as libcudart.so.N before comparing, so
#                            that one expected file serves every CUDA major
#   -DRANKS=n -DIDFILE=path  run n copies at once, each with --nranks n
#                            --rank i --id-file path; all must exit with RC,
#                            the last rank's output is compared
# With DLT_FAKES_UPDATE=1 in the environment it rewrites EXPECT instead of
# comparing, and the test counts as skipped (SKIP_REGULAR_EXPRESSION of
# tests/fakes/CMakeLists.txt): a file just written from the output proves
# nothing about it.  The exit status is still checked.
list(FILTER ENV EXCLUDE REGEX "^$")
if(RANKS)
  file(REMOVE "${IDFILE}")
  set(cmds)
  math(EXPR last "${RANKS} - 1")
  foreach(i RANGE ${last})
    if(i EQUAL last)
      list(APPEND cmds COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${CMD}
           --nranks ${RANKS} --rank ${i} --id-file ${IDFILE})
    else()
      # The other ranks write to files of their own: into the pipe to the
      # next rank, which does not read it and may have exited, a late line
      # would kill them with SIGPIPE (and `cmake -E env` reports exit 1).
      list(APPEND cmds COMMAND ${CMAKE_COMMAND} -E env ${ENV}
           /bin/sh -c "exec \"$@\" > \"$0\"" ${IDFILE}.out${i} ${CMD}
           --nranks ${RANKS} --rank ${i} --id-file ${IDFILE})
    endif()
  endforeach()
  # The ranks run concurrently (execute_process pipes one into the next,
  # and none reads its input); only the last one's output is compared.
  execute_process(${cmds} OUTPUT_VARIABLE out ERROR_VARIABLE err
                  RESULTS_VARIABLE rcs)
  file(REMOVE "${IDFILE}")
  foreach(i RANGE ${last})
    if(EXISTS "${IDFILE}.out${i}")
      file(READ "${IDFILE}.out${i}" rank_out)
      string(APPEND err "--- stdout of rank ${i}:\n${rank_out}")
      file(REMOVE "${IDFILE}.out${i}")
    endif()
  endforeach()
else()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ENV} ${CMD}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULTS_VARIABLE rcs)
endif()
if(IDFILE)
  file(REMOVE "${IDFILE}")
endif()
string(REPLACE "${SONAME}" "libcudart.so.N" out "${out}")
foreach(rc IN LISTS rcs)
  if(NOT rc STREQUAL RC)
    message(FATAL_ERROR "exit status ${rcs}, expected ${RC}\n"
                        "stdout:\n${out}\nstderr:\n${err}")
  endif()
endforeach()
if("$ENV{DLT_FAKES_UPDATE}" STREQUAL "1")
  file(WRITE "${EXPECT}" "${out}")
  message("DLT_FAKES_UPDATE: wrote ${EXPECT}, not compared")
  return()
endif()
file(READ "${EXPECT}" want)
if(NOT out STREQUAL want)
  message(FATAL_ERROR "output differs from ${EXPECT}:\n${out}\n"
                      "stderr:\n${err}")
endif()
