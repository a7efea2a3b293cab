#!/bin/sh
# embed-json.sh NAME FILE: prints a C file defining `const char NAME[]` with
# the contents of FILE, so a data file can be compiled into the binary.
set -eu
name=$1
file=$2
printf '/* Generated from %s by tools/embed-json.sh; do not edit. */\n' "$(basename "$file")"
printf 'extern const char %s[];\n' "$name"
printf 'const char %s[] =\n' "$name"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$file"
printf ';\n'
