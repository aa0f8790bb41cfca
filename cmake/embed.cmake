# Writes OUT, a C file that defines one NUL-terminated char array per
# input file: -DOUT=file.c -DNAMES="name1;name2" -DFILES="path1;path2".
# Arrays of bytes rather than string literals: C11 compilers need only
# accept literals of 4095 characters, and the page's script is longer.
set(text "/* Made by cmake/embed.cmake from analyzer/cmds/report/: do not edit. */\n")
list(LENGTH NAMES n)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  list(GET NAMES ${i} name)
  list(GET FILES ${i} file)
  file(READ ${file} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" hex "${hex}")
  string(APPEND text "const char ${name}[] = {\n${hex}0x00};\n")
endforeach()
file(WRITE ${OUT}.new "${text}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.new ${OUT})
