#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# check-man.sh [SOURCE_DIR] - the man pages are complete and render cleanly. Exit 0 / 1.
#
#   1. every public function (evt_* declared in include/evtrace/*.h, comments ignored) has a
#      page in man/man3: its own, or a ".so man3/<page>.3" link to the page that documents it
#      with others, whose NAME line lists it;
#   2. every page in man/man3 is for a declared function (no page outlives its function), and
#      every function a page's NAME lists is declared, appears in its SYNOPSIS, and has a file;
#   3. every page that is not a link has the sections NAME, LIBRARY, SYNOPSIS, DESCRIPTION,
#      RETURN VALUE, ERRORS, CONTEXT, EXAMPLE (with .EX/.EE) and SEE ALSO;
#   4. every evt_*(3) page named in a SEE ALSO exists, and evtrace(7) names every function;
#   5. with man-db installed, `man --warnings -l` renders every page without a warning
#      (run from man/, where the .so links resolve as they do once installed).
top=${1:-.}
man3=$top/man/man3
man7=$top/man/man7
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

err() {
	echo "$*"
	fail=1
}

# The functions declared in the public headers: identifiers followed by "(", outside comments.
for h in "$top"/include/evtrace/*.h; do
	awk '{
		line = $0; out = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (!i) { line = ""; break }
				line = substr(line, i + 2); incomment = 0
			} else {
				i = index(line, "/*")
				if (!i) { out = out line; line = ""; break }
				out = out substr(line, 1, i - 1); line = substr(line, i + 2); incomment = 1
			}
		}
		print out
	}' "$h"
done | grep -v '^[[:space:]]*#' | grep -oE '\bevt_[a-z0-9_]+[[:space:]]*\(' |
	tr -d '( \t' | sort -u >"$tmp/funcs"
[ -s "$tmp/funcs" ] || err "no evt_* function found in $top/include/evtrace/*.h"

# The names a page's NAME section lists (the line(s) before " \- ").
page_names() {
	awk '/^\.SH NAME/ { on = 1; next } /^\.SH/ { on = 0 } on' "$1" |
		sed 's/ \\-.*//; s/[[:space:]]//g' | tr ',' '\n' | grep -v '^$'
}

# The text of one section of a page.
page_section() {
	awk -v s="$2" '$0 ~ "^\\.SH \"?" s "\"?$" { on = 1; next } /^\.SH/ { on = 0 } on' "$1"
}

# 1. every function has a page
while read -r f; do
	page=$man3/$f.3
	if [ ! -f "$page" ]; then
		err "no man page: $f (write man/man3/$f.3, or a .so link to the page that has it)"
		continue
	fi
	target=$(sed -n 's/^\.so[[:space:]]\{1,\}//p' "$page" | head -1)
	[ -n "$target" ] || continue
	if [ ! -f "$top/man/$target" ]; then
		err "$f.3: .so $target: no such page"
	elif ! page_names "$top/man/$target" | grep -qx "$f"; then
		err "$f.3: links to $target, whose NAME does not list $f"
	fi
done <"$tmp/funcs"

for page in "$man3"/*.3; do
	[ -f "$page" ] || continue
	name=$(basename "$page" .3)
	# 2. no page without a function
	grep -qx "$name" "$tmp/funcs" || err "$name.3: no such function in include/evtrace/*.h"
	grep -q '^\.so' "$page" && continue
	for f in $(page_names "$page"); do
		grep -qx "$f" "$tmp/funcs" || err "$name.3: NAME lists $f, which is not declared"
		[ -f "$man3/$f.3" ] || err "$name.3: NAME lists $f, but man/man3/$f.3 does not exist"
		page_section "$page" SYNOPSIS | grep -q "$f(" ||
			err "$name.3: $f is not in the SYNOPSIS"
	done
	# 3. the sections
	for s in NAME LIBRARY SYNOPSIS DESCRIPTION "RETURN VALUE" ERRORS CONTEXT EXAMPLE "SEE ALSO"; do
		grep -Eq "^\.SH \"?$s\"?\$" "$page" || err "$name.3: no $s section"
	done
	page_section "$page" EXAMPLE | grep -q '^\.EX' || err "$name.3: the EXAMPLE has no .EX/.EE"
	# 4. SEE ALSO points at pages that exist
	for ref in $(page_section "$page" "SEE ALSO" | sed -n 's/^\.BR \(\\%\)\{0,1\}\(evt_[a-z0-9_]*\) (3).*/\2/p'); do
		[ -f "$man3/$ref.3" ] || err "$name.3: SEE ALSO $ref(3): no such page"
	done
done

# 4. the overview names every function
if [ -f "$man7/evtrace.7" ]; then
	while read -r f; do
		grep -qw -- "$f" "$man7/evtrace.7" || err "evtrace.7 does not name $f"
	done <"$tmp/funcs"
else
	err "no man/man7/evtrace.7"
fi

# 5. rendering
if command -v man >/dev/null 2>&1 && man --help 2>&1 | grep -q -- --warnings; then
	nr=0
	for page in "$man3"/*.3 "$man7"/*.7; do
		[ -f "$page" ] || continue
		rel=${page#"$top/man/"}
		out=$(cd "$top/man" && MANWIDTH=80 man --warnings -l "$rel" 2>&1 >/dev/null)
		if [ -n "$out" ]; then
			err "$rel does not render cleanly:"
			echo "$out" | sed 's/^/    /'
		fi
		nr=$((nr + 1))
	done
	echo "$nr pages rendered"
else
	echo "man-db is not installed: rendering not checked (apt-get install man-db)"
fi

if [ $fail -eq 0 ]; then
	echo "$(wc -l <"$tmp/funcs") public functions, every one documented"
fi
exit $fail
