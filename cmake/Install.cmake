# Installing Attention Lab like desktop software (docs/INSTALL.md): `cmake --install` puts the
# executable, its menu entry, icon, AppStream metadata, man page, bash completion and the .npy MIME
# type under the prefix (/usr/local by default, /usr for packages); `cpack -G DEB` makes a .deb of
# the same tree whose Depends come from the binary's shared libraries (dpkg-shlibdeps).
include(GNUInstallDirs)

# AppStream wants web addresses for the project and its screenshot. This repository has no public
# home yet, so these are placeholders a packager sets (-DATTNLAB_HOMEPAGE_URL=...); the screenshot
# itself is assets/desktop/screenshot.png, and the metainfo expects it at that address.
set(ATTNLAB_HOMEPAGE_URL "https://example.org/attnlab" CACHE STRING "The project's web page (AppStream metainfo)")
set(ATTNLAB_SCREENSHOT_URL "${ATTNLAB_HOMEPAGE_URL}/screenshot.png" CACHE STRING
    "Where assets/desktop/screenshot.png is published (AppStream metainfo)")
set(ATTNLAB_MAINTAINER "Attention Lab maintainers <attnlab@example.org>" CACHE STRING
    "The .deb's Maintainer field")

set(ATTNLAB_SHARE_OUT ${PROJECT_BINARY_DIR}/share)
configure_file(${PROJECT_SOURCE_DIR}/assets/desktop/attnlab.metainfo.xml
               ${ATTNLAB_SHARE_OUT}/metainfo/attnlab.metainfo.xml @ONLY)

# The man page and the completion are printed by the executable from its own CLI11 definitions
# (app/cli/cli_docs.hpp), written to a temporary name and renamed so a failed run leaves nothing.
# In a sanitizer build the run checks memory but not leaks (Mesa and OpenBLAS keep allocations until
# exit; tests/sanitizer/lsan.supp is for the tests). The fuzz build's executable is instrumented for
# libFuzzer and never run at build time.
if(NOT ATTNLAB_FUZZ)
  set(ATTNLAB_MAN_PAGE ${ATTNLAB_SHARE_OUT}/man/man1/attnlab.1)
  set(ATTNLAB_COMPLETION ${ATTNLAB_SHARE_OUT}/bash-completion/completions/attnlab)
  add_custom_command(
    OUTPUT ${ATTNLAB_MAN_PAGE} ${ATTNLAB_COMPLETION}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ATTNLAB_SHARE_OUT}/man/man1
            ${ATTNLAB_SHARE_OUT}/bash-completion/completions
    COMMAND sh -c "ASAN_OPTIONS=detect_leaks=0 \"$1\" --help-man > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" sh
            $<TARGET_FILE:attnlab> ${ATTNLAB_MAN_PAGE}
    COMMAND sh -c "ASAN_OPTIONS=detect_leaks=0 \"$1\" --help-bash-completion > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"" sh
            $<TARGET_FILE:attnlab> ${ATTNLAB_COMPLETION}
    DEPENDS attnlab
    COMMENT "Writing attnlab(1) and the bash completion from the command line's definitions"
    VERBATIM)
  add_custom_target(attnlab_docs ALL DEPENDS ${ATTNLAB_MAN_PAGE} ${ATTNLAB_COMPLETION})
  install(FILES ${ATTNLAB_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${ATTNLAB_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
endif()

install(TARGETS attnlab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/assets/desktop/attnlab.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
install(FILES ${PROJECT_SOURCE_DIR}/assets/desktop/attnlab.svg
        DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
install(FILES ${ATTNLAB_SHARE_OUT}/metainfo/attnlab.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${PROJECT_SOURCE_DIR}/assets/desktop/attnlab-mime.xml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME attnlab.xml)

# The .deb. Fonts, libglvnd and Mesa are run-time needs the linker cannot see (DejaVu Sans is found
# at run time; libepoxy and GLFW dlopen libEGL.so.1 and libGL.so.1, which load Mesa's drivers), so
# they are named here and dpkg-shlibdeps adds the rest. scripts/check-deb on a clean Debian 12 is
# what found libegl1 and libgl1 missing.
# Debian's own triggers (desktop-file-utils, shared-mime-info, hicolor-icon-theme) refresh the menu,
# MIME and icon caches when the package lands.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME attnlab)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "scaled dot-product attention you can touch")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${ATTNLAB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ATTNLAB_HOMEPAGE_URL}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fonts-dejavu-core, libegl1, libgl1, libgl1-mesa-dri, libegl-mesa0, libglx-mesa0")
# CPack writes the summary as the first line of Description and indents this text under it.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Attention Lab makes softmax(Q K^T / sqrt(d_k)) V something a student can touch: edit Q, K and V, "
    "switch the scaling, a mask and the temperature, and watch every stage (scores, logits, weights, "
    "output) and how saturated the softmax is, as heatmaps large enough for a projector. Built-in "
    "lessons follow the course; figures export as PNG, PDF and SVG; the same engine runs from the "
    "command line (attnlab compute, export, scaling, bench).")
set(CPACK_STRIP_FILES ON)
include(CPack)
