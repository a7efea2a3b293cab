#!/bin/sh
# quickstart.sh [ATTNVIEW ARGS]: the README's first command: installs what the
# build needs, builds in build/, and starts attnview (on its built-in sample
# unless given arguments).
set -eu
cd "$(dirname "$0")/.."
tools/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p build
cd build
[ -f config.status ] || ../configure -q
make -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
exec ./src/attnview "$@"
