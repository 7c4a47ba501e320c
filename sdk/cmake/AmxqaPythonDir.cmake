# AMXQA_INSTALL_PYTHONDIR: where cmake --install puts the amxqa Python package.
# The Python package goes where python3 looks under a prefix: Debian's python3
# reads <prefix>/lib/python3/dist-packages (its deb_system scheme, right for
# --prefix /usr), any other python3 <prefix>/lib/pythonX.Y/site-packages
# (sysconfig posix_prefix). Debian with --prefix /usr/local wants
# -DAMXQA_INSTALL_PYTHONDIR=lib/python3.11/dist-packages; for any other prefix
# put <prefix>/${AMXQA_INSTALL_PYTHONDIR} on PYTHONPATH. Installed, the package
# finds <prefix>/lib/libamxqa.so and share/amxqa/default.amxqa by itself.
if(NOT DEFINED AMXQA_INSTALL_PYTHONDIR)
  find_program(AMXQA_INSTALL_PYTHON3 python3)
  set(_amxqa_pydir lib/python3/dist-packages)
  if(AMXQA_INSTALL_PYTHON3)
    execute_process(COMMAND ${AMXQA_INSTALL_PYTHON3} -c
      "import sysconfig as s; n = 'deb_system' if 'deb_system' in s.get_scheme_names() else 'posix_prefix'; print(s.get_path('purelib', n, vars={'base': '/P', 'platbase': '/P'})[3:])"
      OUTPUT_VARIABLE _amxqa_pydir_found OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_amxqa_pydir_found)
      set(_amxqa_pydir ${_amxqa_pydir_found})
    endif()
  endif()
  set(AMXQA_INSTALL_PYTHONDIR ${_amxqa_pydir} CACHE STRING "Python package folder, relative to the install prefix")
endif()
