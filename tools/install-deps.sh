#!/bin/sh
# install-deps.sh: installs the Debian packages attnview's build and tests
# need (libopenblas-dev for the matrix products and libopenblas0-serial,
# its single-threaded build, which configure links when present; without
# them configure falls back to its plain kernel), if any is missing (with
# sudo unless run as root), and generates the comma-decimal locale
# de_DE.UTF-8 the locale tests use and zh_CN.UTF-8 the Chinese screen tests use (they are skipped,
# saying so, without them). Packages given as arguments are wanted too: CI
# passes clang and its runtimes (for the fuzz targets and a second sanitizer
# build); the Quick start passes none.
set -eu
packages="build-essential autoconf automake pkg-config libncurses-dev libcjson-dev libcmocka-dev libopenblas-dev libopenblas0-serial tmux locales gettext autopoint $*"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
		|| missing="$missing $p"
done
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
if [ -n "$missing" ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	# shellcheck disable=SC2086 # one word per package
	$sudo apt-get install -y -qq $missing >/dev/null
fi
if [ "$(LC_ALL=de_DE.UTF-8 locale decimal_point 2>/dev/null)" != "," ]; then
	echo "generating the locale de_DE.UTF-8 (for the locale tests)"
	$sudo localedef -i de_DE -f UTF-8 de_DE.UTF-8
fi
if [ "$(LC_ALL=zh_CN.UTF-8 locale charmap 2>/dev/null)" != "UTF-8" ]; then
	echo "generating the locale zh_CN.UTF-8 (for the Chinese screen tests)"
	$sudo localedef -i zh_CN -f UTF-8 zh_CN.UTF-8
fi
