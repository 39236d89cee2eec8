# Writes OUTPUT, a header defining FASTCUDA_COMMIT: the source tree's git
# commit, "-dirty" if it has changes, or "unknown" outside a git checkout.
# Run by the build each time (cmake -DSOURCE_DIR=... -DOUTPUT=... -P), it
# rewrites OUTPUT only when the text changes, so only a new commit
# recompiles what includes it.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE status ERROR_QUIET)
if(NOT status EQUAL 0)
  set(commit unknown)
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(changes)
    string(APPEND commit -dirty)
  endif()
endif()
set(text "#define FASTCUDA_COMMIT \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
