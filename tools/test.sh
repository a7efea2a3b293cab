#!/bin/sh
# tools/test.sh: the whole test suite, as the README's Quick start runs it:
# configure with warnings as errors, build, `make check`, then `make distcheck`
# (an out-of-tree build of the release tarball, tests included).
# It builds in build/ (where the Quick start built), or in the source tree if
# that was configured there (./configure && make).
set -eu
cd "$(dirname "$0")/.."
[ -x configure ] || autoreconf -fi
if [ ! -f config.status ]; then
	mkdir -p build
	cd build
	[ -f config.status ] || ../configure -q --enable-werror
fi
jobs=$(nproc 2>/dev/null || echo 2)
make -j"$jobs" >/dev/null
make -j"$jobs" check || { cat test-suite.log 2>/dev/null; exit 1; }
make -j"$jobs" distcheck >/dev/null
echo "distcheck passed"
