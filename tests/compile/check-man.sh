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
#   5. with groff installed, every page that is not a .so link renders without a warning, as
#      `man --warnings -l` would render it (run from man/, where .so links resolve as installed).
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

# Checks 1 to 4 in one awk pass over every page (a process per page and check took minutes on a
# loaded machine). The function list comes first, then evtrace(7), then the man3 pages.
[ -f "$man7/evtrace.7" ] || err "no man/man7/evtrace.7"
ls "$man3" | sed -n 's/\.3$//p' >"$tmp/pages"
awk -v man="$top/man" -v man7page="$man7/evtrace.7" '
function bad(msg) { print msg; failed = 1 }
# the page just read, once its last line is in: checks 2, 3 and 4
function finish(   i, n, f, s, sections, refs) {
	if (page == "")
		return
	if (link != "") {
		linkof[page] = link
		return
	}
	n = split(names, f, ",")
	for (i = 1; i <= n; i++) {
		if (f[i] == "")
			continue
		if (!(f[i] in funcs))
			bad(page ".3: NAME lists " f[i] ", which is not declared")
		if (!(f[i] in pages))
			bad(page ".3: NAME lists " f[i] ", but man/man3/" f[i] ".3 does not exist")
		if (index(synopsis, f[i] "(") == 0)
			bad(page ".3: " f[i] " is not in the SYNOPSIS")
	}
	n = split("NAME|LIBRARY|SYNOPSIS|DESCRIPTION|RETURN VALUE|ERRORS|CONTEXT|EXAMPLE|SEE ALSO",
		  sections, "|")
	for (i = 1; i <= n; i++)
		if (!(sections[i] in seen))
			bad(page ".3: no " sections[i] " section")
	if (!example_ex)
		bad(page ".3: the EXAMPLE has no .EX/.EE")
	n = split(seealso, refs, " ")
	for (i = 1; i <= n; i++)
		if (!(refs[i] in pages))
			bad(page ".3: SEE ALSO " refs[i] "(3): no such page")
	pagenames[page] = names
}
FILENAME == ARGV[1] { funcs[$0] = 1; next }
FILENAME == ARGV[2] { pages[$0] = 1; next }
FILENAME == man7page {
	for (f in funcs)
		if (!(f in in7) && match($0, "(^|[^A-Za-z0-9_])" f "([^A-Za-z0-9_]|$)"))
			in7[f] = 1
	next
}
FNR == 1 {
	finish()
	page = FILENAME
	sub(/^.*\//, "", page)
	sub(/\.3$/, "", page)
	link = names = synopsis = seealso = section = ""
	example_ex = 0
	delete seen
}
/^\.so[ \t]/ && link == "" { link = $2 }
/^\.SH/ {
	section = $0
	sub(/^\.SH[ \t]*/, "", section)
	gsub(/"/, "", section)
	seen[section] = 1
	next
}
section == "NAME" {
	line = $0
	if (sub(/ \\-.*/, "", line) || names == "" || names ~ /,$/) {
		gsub(/[ \t]/, "", line)
		names = names line
	}
}
section == "SYNOPSIS" { synopsis = synopsis $0 "\n" }
section == "EXAMPLE" && /^\.EX/ { example_ex = 1 }
section == "SEE ALSO" && /^\.BR (\\%)?evt_[a-z0-9_]* \(3\)/ {
	ref = $2
	sub(/^\\%/, "", ref)
	seealso = seealso " " ref
}
END {
	finish()
	# 2. no page without a function
	for (p in pages)
		if (!(p in funcs))
			bad(p ".3: no such function in include/evtrace/*.h")
	# 1. every function has a page, and a link points at a page whose NAME lists it
	for (f in funcs) {
		if (!(f in pages)) {
			bad("no man page: " f " (write man/man3/" f ".3, or a .so link to the page that has it)")
			continue
		}
		if (!(f in linkof))
			continue
		target = linkof[f]
		tpage = target
		sub(/^man3\//, "", tpage)
		sub(/\.3$/, "", tpage)
		if (target !~ /^man3\// || !(tpage in pages))
			bad(f ".3: .so " target ": no such page")
		else if (index("," pagenames[tpage] ",", "," f ",") == 0)
			bad(f ".3: links to " target ", whose NAME does not list " f)
	}
	# 4. the overview names every function
	if (man7page != "")
		for (f in funcs)
			if (!(f in in7))
				bad("evtrace.7 does not name " f)
	exit failed
}' "$tmp/funcs" "$tmp/pages" $( [ -f "$man7/evtrace.7" ] && echo "$man7/evtrace.7") \
	"$man3"/*.3 || fail=1

# 5. rendering, as man(1) renders (its pipeline is groff -mandoc with -wmac for --warnings): every
# page of man1, man3 and man7 that is not a .so link (a link renders its target), one groff each so
# that a warning names its page.
if command -v groff >/dev/null 2>&1; then
	nr=0
	for page in "$top"/man/man1/*.1 "$man3"/*.3 "$man7"/*.7; do
		[ -f "$page" ] || continue
		grep -q '^\.so' "$page" && continue
		rel=${page#"$top/man/"}
		out=$(cd "$top/man" && groff -mandoc -Tutf8 -wmac -z -k -rLL=80n "$rel" 2>&1)
		if [ -n "$out" ]; then
			err "$rel does not render cleanly:"
			echo "$out" | sed 's/^/    /'
		fi
		nr=$((nr + 1))
	done
	echo "$nr pages rendered"
else
	echo "groff is not installed: rendering not checked (apt-get install groff-base)"
fi

if [ $fail -eq 0 ]; then
	echo "$(wc -l <"$tmp/funcs") public functions, every one documented"
fi
exit $fail
