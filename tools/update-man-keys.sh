#!/bin/sh
# update-man-keys.sh KEYS_PROGRAM: rewrites the KEYS section of doc/attnview.1
# from the key table (src/ui/actions.h), as printed by src/ui/attnview-keys -m,
# and that of the Chinese page doc/zh_CN/attnview.1 from the same table in
# Chinese (the build tree's catalogue, made from po/zh_CN.po; it needs the
# zh_CN.UTF-8 locale). tests/man-keys.test fails when they disagree.
set -eu
keys=$1
doc=$(dirname "$0")/../doc

# replace MAN's lines between the KEYS markers with standard input
replace_keys() {
	man=$1
	tmp=$man.tmp
	cat >"$tmp.keys"
	awk -v keys="$tmp.keys" '
		/^\.\\" KEYS-BEGIN/ { print; while ((getline line < keys) > 0) print line; skip = 1; next }
		/^\.\\" KEYS-END/ { skip = 0 }
		!skip { print }
	' "$man" >"$tmp"
	rm -f "$tmp.keys"
	mv "$tmp" "$man"
}

LC_ALL=C LANGUAGE= "$keys" -m | replace_keys "$doc/attnview.1"
if [ "$(LC_ALL=zh_CN.UTF-8 locale charmap 2>/dev/null)" = "UTF-8" ]; then
	env -u LC_ALL LANG=zh_CN.UTF-8 LANGUAGE=zh_CN "$keys" -m | replace_keys "$doc/zh_CN/attnview.1"
else
	echo "update-man-keys.sh: no zh_CN.UTF-8 locale: doc/zh_CN/attnview.1 not updated" >&2
fi
