# Shared by embed_web.cmake and embed_dir.cmake: appends to OUT_VAR a C++
# expression `std::string() + R"LCWEB(...)LCWEB" + ...` holding DATA, cut in
# 16 KiB raw string literals (ISO C++ only promises 64 KiB per literal).
# PATH names the file in the error when it holds the delimiter.
function(lc_append_text_literal OUT_VAR DATA PATH)
  string(FIND "${DATA}" ")LCWEB" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${PATH} contains the raw-string delimiter )LCWEB")
  endif()
  set(out "${${OUT_VAR}}std::string()")
  string(LENGTH "${DATA}" size)
  set(at 0)
  while(at LESS size)
    string(SUBSTRING "${DATA}" ${at} 16384 piece)
    string(APPEND out "\n      + R\"LCWEB(${piece})LCWEB\"")
    math(EXPR at "${at} + 16384")
  endwhile()
  set(${OUT_VAR} "${out}" PARENT_SCOPE)
endfunction()
