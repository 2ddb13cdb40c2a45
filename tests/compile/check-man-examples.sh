#!/bin/sh
# The EXAMPLE of every man3 page compiles against the public headers.
top=${1:-.}
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/inc/evtrace"
# version.h is generated at build time; a stand-in is enough to compile
printf '#define EVTRACE_VERSION "0"\n' >"$tmp/inc/evtrace/version.h"
fail=0
n=0
for page in "$top"/man/man3/*.3; do
	grep -q '^\.EX' "$page" || continue
	name=$(basename "$page" .3)
	sed -n '/^\.EX/,/^\.EE/p' "$page" | sed '1d;$d' | sed 's/\\e/\\/g; s/\\-/-/g' >"$tmp/$name.c"
	n=$((n + 1))
	if ! $cc -std=gnu11 -Wall -Wextra -Werror -Wno-unused-function -fsyntax-only \
		-include errno.h -I"$top/include" -I"$tmp/inc" "$tmp/$name.c" 2>"$tmp/$name.err"; then
		echo "EXAMPLE of $name.3 does not compile:"
		cat "$tmp/$name.err"
		fail=1
	fi
done
echo "$n examples compiled"
exit $fail
