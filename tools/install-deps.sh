#!/bin/sh
# install-deps.sh: installs the Debian packages attnview's build and tests
# need, if any is missing (with sudo unless run as root).
set -eu
packages="build-essential autoconf automake pkg-config libncurses-dev libcjson-dev libcmocka-dev tmux"
missing=""
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
		|| missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "installing:$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$sudo apt-get install -y -qq $missing >/dev/null
