# Writes OUT: a header with kMigrations[], one entry per FILES element, in
# order. Each file's text becomes a raw string literal.
set(content "// Generated from daemon/store/migrations/*.sql; do not edit.\n#pragma once\n\nnamespace raw::store {\n\nstruct EmbeddedMigration {\n  const char* name;\n  const char* sql;\n};\n\ninline constexpr EmbeddedMigration kMigrations[] = {\n")
foreach(f ${FILES})
  get_filename_component(n ${f} NAME)
  file(READ ${f} sql)
  string(APPEND content "    {\"${n}\", R\"raw_sql(${sql})raw_sql\"},\n")
endforeach()
string(APPEND content "};\n\n}  // namespace raw::store\n")
file(WRITE ${OUT}.tmp "${content}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
