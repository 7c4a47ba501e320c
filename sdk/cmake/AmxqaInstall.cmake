# `cmake --install build [--prefix DIR]` installs the SDK:
#   include/amxqa.h (+ amxqa.hpp when present)
#   lib/libamxqa.a, lib/libamxqa.so -> libamxqa.so.0 -> libamxqa.so.<version> (SONAME libamxqa.so.0)
#   lib/cmake/amxqa/amxqaConfig.cmake, amxqaConfigVersion.cmake, amxqaTargets*.cmake
#     find_package(amxqa) gives amxqa::amxqa (shared) and amxqa::amxqa_static
#   lib/pkgconfig/amxqa.pc   (pkg-config --cflags --libs amxqa)
#   bin/amxqa, bin/amxqa-train, bin/amxqa-bench when they are built
#   share/amxqa/default.amxqa, MODEL_CARD.md   (the tools' default model)
#   ${AMXQA_INSTALL_PYTHONDIR}/amxqa            (the Python package; see below)
# Everything is relocatable: nothing records the configure-time prefix.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(AMXQA_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/amxqa)

file(GLOB AMXQA_INSTALL_HEADERS ${PROJECT_SOURCE_DIR}/include/*.h ${PROJECT_SOURCE_DIR}/include/*.hpp)
install(FILES ${AMXQA_INSTALL_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)

install(TARGETS amxqa_static amxqa_shared EXPORT amxqaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT devel
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT amxqaTargets NAMESPACE amxqa:: DESTINATION ${AMXQA_CMAKE_INSTALL_DIR} COMPONENT devel)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/amxqaConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/amxqaConfig.cmake
  INSTALL_DESTINATION ${AMXQA_CMAKE_INSTALL_DIR})
# 0.x: the ABI may change between minor versions, so only the same minor matches.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/amxqaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/amxqaConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/amxqaConfigVersion.cmake
  DESTINATION ${AMXQA_CMAKE_INSTALL_DIR} COMPONENT devel)

# pkg-config file; prefix is found relative to the .pc file itself.
set(AMXQA_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH AMXQA_PC_TO_PREFIX /prefix/${AMXQA_PC_DIR} /prefix)
string(REGEX REPLACE "/$" "" AMXQA_PC_TO_PREFIX "${AMXQA_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/amxqa.pc.in ${CMAKE_CURRENT_BINARY_DIR}/amxqa.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/amxqa.pc DESTINATION ${AMXQA_PC_DIR} COMPONENT devel)

foreach(tool amxqa-cli amxqa-train amxqa-bench)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()

# The default model and its card: <prefix>/share/amxqa/, where the tools look
# (<exe_dir>/../share/amxqa, sdk/common/amxqa_paths.h) and the Python package
# too (amxqa.default_model()).
install(FILES ${PROJECT_SOURCE_DIR}/sdk/models/default.amxqa ${PROJECT_SOURCE_DIR}/sdk/models/MODEL_CARD.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/amxqa COMPONENT runtime)

# The Python package: <prefix>/${AMXQA_INSTALL_PYTHONDIR}/amxqa (AmxqaPythonDir.cmake says which).
include(AmxqaPythonDir)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/python/amxqa DESTINATION ${AMXQA_INSTALL_PYTHONDIR}
  COMPONENT python FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
