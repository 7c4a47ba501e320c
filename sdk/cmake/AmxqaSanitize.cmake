# AMXQA_SANITIZE=address;undefined (or thread) builds everything with those sanitizers.
if(AMXQA_SANITIZE)
  string(REPLACE ";" "," _amxqa_san "${AMXQA_SANITIZE}")
  add_compile_options(-fsanitize=${_amxqa_san} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${_amxqa_san})
  add_compile_definitions(AMXQA_SANITIZED=1)
endif()
