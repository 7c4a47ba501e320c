# Writes a C++ source holding FILES as byte arrays (ui_page.h kEmbeddedUi):
#   cmake -DOUT=ui_files.cpp "-DFILES=a.html;b.js" -P embed_files.cmake
# Run by sdk/server/CMakeLists.txt whenever one of the files changes.
set(src "// Generated from sdk/server/ui by embed_files.cmake: do not edit.\n#include \"ui_page.h\"\n\nnamespace amxqa::serve {\n\nnamespace {\n")
set(entries "")
set(i 0)
foreach(f IN LISTS FILES)
  get_filename_component(name "${f}" NAME)
  file(READ "${f}" hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR size "${hex_len} / 2")
  # 0xNN, per byte, 32 to a line; a trailing 0 so an empty file is still an array.
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  string(REGEX REPLACE "((0x..,){32})" "\\1\n" bytes "${bytes}")
  string(APPEND src "// ${name}\nconst unsigned char kFile${i}[] = {\n${bytes}0};\n")
  string(APPEND entries "    {\"${name}\", kFile${i}, ${size}},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND src "\n}  // namespace\n\nconst EmbeddedFile kEmbeddedUi[] = {\n${entries}};\nconst size_t kEmbeddedUiCount = ${i};\n\n}  // namespace amxqa::serve\n")
file(WRITE "${OUT}" "${src}")
