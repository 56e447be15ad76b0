# Script mode helper for attnlab_embed: writes IN's bytes as a string_view constant to OUT.
file(READ ${IN} content HEX)
string(LENGTH "${content}" hexlen)
math(EXPR nbytes "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE ${OUT}
"// Generated from ${IN}; do not edit.\n#include <string_view>\nnamespace ${NS} {\nnamespace {\nalignas(16) constexpr char data[] = {${bytes} '\\0'};\n}\nextern const std::string_view ${IDENT};\nconst std::string_view ${IDENT}{data, ${nbytes}};\n}  // namespace ${NS}\n")
