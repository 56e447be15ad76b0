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

configure_file(${PROJECT_SOURCE_DIR}/assets/desktop/attnlab.metainfo.xml
               ${ATTNLAB_SHARE_OUT}/metainfo/attnlab.metainfo.xml @ONLY)

# /usr/share/doc/attnlab/copyright: LICENSE in Debian's machine-readable format (DEP-5), written from
# LICENSE itself so the two cannot drift: the copyright line's holder and year, the SPDX name, and the
# permission text as the License field's body (each line indented, blank lines as " .").
file(READ ${PROJECT_SOURCE_DIR}/LICENSE license_text)
string(REGEX REPLACE "^.*\n(Permission )" "\\1" license_body "${license_text}")
string(STRIP "${license_body}" license_body)
string(REPLACE "\n\n" "\n.\n" license_body "${license_body}")
string(REPLACE "\n" "\n " license_body "${license_body}")
string(REGEX REPLACE "^Copyright \\(c\\) " "" copyright_holder "${ATTNLAB_COPYRIGHT}")
file(WRITE ${ATTNLAB_SHARE_OUT}/doc/attnlab/copyright
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
  "Upstream-Name: attnlab\n"
  "Source: ${ATTNLAB_HOMEPAGE_URL}\n"
  "\n"
  "Files: *\n"
  "Copyright: ${copyright_holder}\n"
  "License: ${ATTNLAB_LICENSE}\n"
  " ${license_body}\n")
install(FILES ${ATTNLAB_SHARE_OUT}/doc/attnlab/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man page and the completion: written by the attnlab target itself (cmake/CliDocs.cmake).
if(NOT ATTNLAB_FUZZ)
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
# Chinese, Japanese and Korean text (a Qwen's tokens): without it those characters draw as '?'.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "fonts-droid-fallback")
# CPack writes the summary as the first line of Description and indents this text under it.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Attention Lab makes softmax(Q K^T / sqrt(d_k)) V something a student can touch: edit Q, K and V, "
    "switch the scaling, a mask and the temperature, and watch every stage (scores, logits, weights, "
    "output) and how saturated the softmax is, as heatmaps large enough for a projector. Built-in "
    "lessons follow the course; figures export as PNG, PDF and SVG; the same engine runs from the "
    "command line (attnlab compute, export, scaling, bench).")
set(CPACK_STRIP_FILES ON)
include(CPack)
