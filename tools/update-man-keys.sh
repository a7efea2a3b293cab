#!/bin/sh
# update-man-keys.sh KEYS_PROGRAM: rewrites the KEYS section of doc/attnview.1
# from the key table (src/ui/actions.h), as printed by src/ui/attnview-keys -m.
# tests/man-keys.test fails when the two disagree.
set -eu
keys=$1
man=$(dirname "$0")/../doc/attnview.1
tmp=$man.tmp
"$keys" -m >"$tmp.keys"
awk -v keys="$tmp.keys" '
	/^\.\\" KEYS-BEGIN/ { print; while ((getline line < keys) > 0) print line; skip = 1; next }
	/^\.\\" KEYS-END/ { skip = 0 }
	!skip { print }
' "$man" >"$tmp"
rm -f "$tmp.keys"
mv "$tmp" "$man"
