#!/bin/sh
# Install the Debian packages the build and `make check` need, if missing.
# Only as root (CI, a fresh machine); otherwise say what is missing.
PKGS="cmake make gcc g++ clang libclang-rt-14-dev llvm pkg-config"
missing=""
for p in $PKGS; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq $missing >/dev/null
else
	echo "missing Debian packages:$missing (run as root, or: sudo apt-get install$missing)"
	exit 1
fi
