#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-funclen.sh [SOURCE_DIR [MAX]] - no function in src/ or tools/ is longer than MAX lines
# (150; CONTRIBUTING.md "Style": a function that fills a screen and a half holds more than one
# job). Exit 0 / 1.
#
# Kernel style makes this a text check: a function body opens with "{" alone at the start of a
# line and closes with the first "}" at the start of a line after it (anything nested is
# indented). A function's length is counted from the first line of its declarator (the line
# with its name, after the return type lines) to that "}", both included. Each long function
# is printed as "file:line: name: N lines".
top=${1:-.}
max=${2:-150}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

cd "$top" || exit 1
[ -d src ] || { echo "FAIL: no src/ under $top"; exit 1; }
find src tools -name '*.[ch]' 2>/dev/null | sort >"$tmp/files"
[ -s "$tmp/files" ] || { echo "FAIL: no sources under $top/src"; exit 1; }

# "path name length line" for every function longer than max
# shellcheck disable=SC2046 # the file names have no spaces
awk -v max="$max" '
	FNR == 1 { decl = 0; body = 0 }
	body {
		if ($0 ~ /^}/) {
			if (decl && FNR - decl + 1 > max)
				print FILENAME, name, FNR - decl + 1, decl
			body = 0; decl = 0
		}
		next
	}
	/^\{/ {
		if (!decl) {	# a body whose declarator was not seen: counted from its "{"
			decl = FNR; name = "(unnamed)"
		}
		body = 1; nfunc++; next
	}
	# a declarator: a name in column 0 followed by "(" (the return type may be on the line
	# before); its continuation lines are indented; a blank or other column-0 line ends it
	/^[A-Za-z_]/ && index($0, "(") && $0 !~ /;[[:space:]]*$/ {
		line = $0
		gsub(/__attribute__[[:space:]]*\(\([^)]*\)\)/, "", line)
		line = substr(line, 1, index(line, "(") - 1)
		sub(/[[:space:]]+$/, "", line)
		n = split(line, w, /[^A-Za-z_0-9]+/)
		name = w[n]
		decl = FNR
		next
	}
	/^[^[:space:]]/ || /^$/ { decl = 0 }
	END { print nfunc + 0 >"/dev/stderr" }
' $(cat "$tmp/files") 2>"$tmp/count" | sort >"$tmp/long"
# a check that saw no function at all would pass vacuously
[ "$(cat "$tmp/count")" -gt 100 ] || { echo "FAIL: only $(cat "$tmp/count") functions found"; exit 1; }

fail=0
while read -r path name len line; do
	echo "$path:$line: $name: $len lines, more than $max"
	fail=1
done <"$tmp/long"

[ "$fail" = 0 ] && echo "PASS: none of the $(cat "$tmp/count") functions in src/ and tools/ is longer than $max lines"
exit "$fail"
