# SPDX-License-Identifier: GPL-3.0-or-later
# Writes OUT, a C header holding each file of the page as a string:
# cmake -DOUT=out_html_page.h -DDIR=html -P embed.cmake
# Every byte as a hex escape, so that no file's text can end the string.
set(text "/* generated from opreport/html by embed.cmake: do not edit */\n")
foreach(pair "head;head.html" "body;body.html" "css;flame.css" "js;flame.js")
  list(GET pair 0 name)
  list(GET pair 1 file)
  file(READ "${DIR}/${file}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" esc "${hex}")
  # a line every 64 bytes keeps the compiler's diagnostics readable
  string(REGEX REPLACE "((\\\\x..){64})" "\\1\"\n\t\"" esc "${esc}")
  string(APPEND text "static const char out_html_${name}[] =\n\t\"${esc}\";\n")
endforeach()
file(WRITE "${OUT}.tmp" "${text}")
file(RENAME "${OUT}.tmp" "${OUT}")
