# The Debian package: `cpack -G DEB` from the build folder writes hsalit_VERSION_ARCH.deb of the
# install rules (cmake/install.cmake) under /usr. dpkg-shlibdeps computes the runtime libraries
# it depends on (Z3, fmt, mimalloc, the C++ runtime); the tools hsalit can use beside it (hsalit
# doctor) are Recommends and Suggests. scripts/package-test builds, installs, runs and removes
# it (docs/install.md).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hsalit)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "litmus tests for the HSA memory model on AMD GPUs")
set(CPACK_PACKAGE_DESCRIPTION
    "hsalit checks GPU litmus tests against the HSA memory model, compiles them to AMD GCN code
from mapping tables, runs them on an operational GCN simulator or on real GPUs (HIP, CUDA), and
compares what is allowed with what is observed. It ships a library of litmus tests and the
mapping tables of every GCN/CDNA/RDNA generation.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the build's debug information stays in the build folder
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(HSALIT_PACKAGE_MAINTAINER "hsalit developers <hsalit@localhost>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${HSALIT_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Graphviz draws the reports' witness graphs; llvm-19 gives verify-llc and compile --via-llc an
# llc that knows the CDNA3 targets (llc-19). The rest enable the other LLVM releases, the GPU
# backends, host emulation, the report rendering test, the completion and the man pages.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "graphviz, llvm-19")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "llvm-14, llvm-16, llvm-22, hipcc, rocm-device-libs, rocminfo, g++, chromium, bash-completion, man-db")
include(CPack)
