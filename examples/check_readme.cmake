# Runs the README example and checks (1) its exit status, (2) its output
# against the hand-worked expected file, (3) that README.md quotes the source
# verbatim in its ```c block.
execute_process(COMMAND "${EXE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "readme_example exited with ${rc}\nstdout:\n${out}\nstderr:\n${err}")
endif()
file(READ "${EXPECTED}" want)
if(NOT out STREQUAL want)
  message(FATAL_ERROR "readme_example printed:\n${out}\nexpected (${EXPECTED}):\n${want}")
endif()

file(READ "${SOURCE}" src)
file(READ "${README}" readme)
string(FIND "${readme}" "```c\n${src}```" pos)
if(pos EQUAL -1)
  message(FATAL_ERROR "README.md does not quote ${SOURCE} verbatim in a ```c block")
endif()
message(STATUS "readme_example: output and README quote match")
