# attnlab(1) and the bash completion (docs/INSTALL.md), printed by the executable from the CLI11
# definitions that parse its command line (app/cli/cli_docs.hpp). They are written as the last step
# of building the attnlab target itself, so whatever builds attnlab (scripts/run, `cmake --build B
# --target attnlab`) has built everything `cmake --install` copies: a separate target would leave
# the install to fail on a missing man page (issue 36).
set(ATTNLAB_SHARE_OUT ${PROJECT_BINARY_DIR}/share)
set(ATTNLAB_MAN_PAGE ${ATTNLAB_SHARE_OUT}/man/man1/attnlab.1)
set(ATTNLAB_COMPLETION ${ATTNLAB_SHARE_OUT}/bash-completion/completions/attnlab)

# attnlab_write_cli_docs(TARGET): after TARGET links, runs it to write the two files (to a temporary
# name, renamed, so a failed run leaves nothing and fails the build). Called where TARGET is defined
# (CMake attaches POST_BUILD steps only there). In a sanitizer build the run checks memory but not
# leaks (Mesa and OpenBLAS keep allocations until exit). Not in the fuzz build (its executable is
# instrumented for libFuzzer) nor when cross-compiling (the browser build cannot run it here).
function(attnlab_write_cli_docs target)
  if(ATTNLAB_FUZZ OR CMAKE_CROSSCOMPILING)
    return()
  endif()
  get_filename_component(man_dir ${ATTNLAB_MAN_PAGE} DIRECTORY)
  get_filename_component(completion_dir ${ATTNLAB_COMPLETION} DIRECTORY)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir} ${completion_dir}
    COMMAND sh -c "ASAN_OPTIONS=detect_leaks=0 \"$1\" --help-man > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" sh
            $<TARGET_FILE:${target}> ${ATTNLAB_MAN_PAGE}
    COMMAND sh -c "ASAN_OPTIONS=detect_leaks=0 \"$1\" --help-bash-completion > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" sh
            $<TARGET_FILE:${target}> ${ATTNLAB_COMPLETION}
    COMMENT "Writing attnlab(1) and the bash completion from the command line's definitions"
    VERBATIM)
endfunction()
