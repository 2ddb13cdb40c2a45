#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# layers.sh SRCDIR OBJDIR [--report] - the layers of DESIGN.md, checked on the code.
#
# Reads two graphs of src/ directories (and tools/):
#   - the symbols: nm of every object under OBJDIR (path .../src/<dir>/<file>.c.o or
#     .../tools/evtrace/<file>.c.o); an undefined symbol of <dir> that another directory
#     defines is an edge <dir> -> <that dir>;
#   - the include lines: `#include "<dir>/..."` in src/<dir>/* and tools/ is an edge too.
# Each edge is compared with the allowed matrix, tests/compile/layers.txt ("layer: the layers
# it may use"; "public": the evt_* functions of any layer; "headers LAYER: dir/file.h ...": the
# only private headers LAYER may include), DESIGN.md's diagram as data.
# Prints every edge the matrix does not allow (with the symbols or the files that make it) and
# every cycle (a set of directories that reach each other), and exits 1 if there is any.
# --report prints the same and exits 0; --graph also prints every edge. src/init.c (the library's start) is layer "init".
src=${1:?usage: layers.sh SRCDIR OBJDIR [--report]}
obj=${2:?usage: layers.sh SRCDIR OBJDIR [--report]}
report=0
[ "$3" = "--report" ] && report=1
[ "$3" = "--graph" ] && report=2
command -v nm >/dev/null || { echo "SKIP: nm (binutils) not found"; exit 77; }
matrix=$src/tests/compile/layers.txt
[ -f "$matrix" ] || { echo "FAIL: no $matrix"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# the objects whose source is there (not one that was moved: a stale object of the build)
find "$obj" -name '*.o' | grep -E '/(src(/[^/]+)?|tools/evtrace)/[^/]+\.o$' | sort |
while read -r o; do
	rel=$(echo "$o" | sed -E 's,.*/((src|tools)/.*)\.o$,\1,')
	[ -f "$src/$rel" ] && echo "$o"
done > "$tmp/objs"
# <layer> <object> <type> <symbol> for every global symbol of every object (one nm for all:
# "file:value T name", "file: U name")
# shellcheck disable=SC2046 # object paths have no blanks (CMake's)
[ -s "$tmp/objs" ] && nm -g -A $(cat "$tmp/objs") 2>/dev/null |
	awk '{
		f = $1; sub(/:.*/, "", f)
		t = $(NF - 1); n = $NF
		rel = f; sub(/.*\/src\//, "src/", rel); sub(/.*\/tools\/evtrace\//, "tools/", rel)
		base = rel; sub(/.*\//, "", base); sub(/\.o$/, "", base)
		if (rel ~ /^tools\//)
			l = "tools"
		else if (rel ~ /^src\/[^\/]+$/)
			l = "init"
		else {
			l = rel; sub(/^src\//, "", l); sub(/\/.*/, "", l)
		}
		print l, base, t, n
	}' > "$tmp/syms"
if [ ! -s "$tmp/syms" ]; then
	echo "FAIL: no objects under $obj"
	exit 1
fi

# <layer> <file> <included layer> for every #include "dir/..." of src/ and tools/
(cd "$src" && grep -HE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"[a-z_]+/' \
	src/*.c src/*/*.[ch] tools/evtrace/*.c tools/include/*.h 2>/dev/null) |
	sed -E 's,^src/([^/:]+):.*"([a-z_]+)/([^"]+)".*,init \1 \2 \3,;
		s,^src/([^/]+)/([^:]+):.*"([a-z_]+)/([^"]+)".*,\1 \2 \3 \4,;
		s,^tools/[^/]+/([^:]+):.*"([a-z_]+)/([^"]+)".*,tools \1 \2 \3,' > "$tmp/incs"

awk -v report="$report" '
FNR == 1 { part++ }
part == 1 {				# the matrix
	sub(/#.*/, "")
	if (!NF)
		next
	if ($1 == "headers") {		# "headers LAYER: dir/file.h ...": its only private headers
		l = $2; sub(/:$/, "", l)
		hdrlist[l] = 1
		for (i = 3; i <= NF; i++)
			hdrok[l, $i] = 1
		next
	}
	l = $1; sub(/:$/, "", l)
	known[l] = 1
	for (i = 2; i <= NF; i++)
		ok[l, $i] = 1
	next
}
part == 2 {				# the symbols
	if ($3 == "U") {
		use[++nu] = $1 SUBSEP $2 SUBSEP $4
	} else if ($3 ~ /^[TDBRCVWGSi]$/) {
		def[$4] = $1
	}
	seen[$1] = 1
	next
}
part == 3 {				# the include lines
	if ($1 != $3)
		addedge($1, $3, "#include \"" $3 "/" $4 "\" in " $2)
	if (($1 in hdrlist) && !(($1, $3 "/" $4) in hdrok)) {
		printf "layers: %s: #include \"%s/%s\" in %s: a private header (layers.txt: " \
			"\"headers %s:\" names the only ones)\n", $1, $3, $4, $2, $1
		badhdr++
	}
	seen[$1] = 1
	next
}
function addedge(a, b, why) {
	if (!((a, b) in edge)) {
		edge[a, b] = 1
		na[a]++
	}
	if (!((a, b, why) in whyseen)) {
		whyseen[a, b, why] = 1
		reason[a, b] = reason[a, b] "\n      " why
	}
}
END {
	for (i = 1; i <= nu; i++) {
		split(use[i], u, SUBSEP)
		if (!(u[3] in def) || def[u[3]] == u[1])
			continue
		# "public" in the line of the layer: the evt_* API of any layer (the tools)
		if ((u[1], "public") in ok && u[3] ~ /^evt_/)
			continue
		addedge(u[1], def[u[3]], u[2] ".o uses " u[3])
	}
	n = 0
	for (l in seen)
		nodes[++n] = l
	bad = 0
	for (l in seen)
		if (!(l in known)) {
			printf "layers: %s is in no line of tests/compile/layers.txt\n", l
			bad++
		}
	# each line of src/ lists its whole closure (CMake links a layer with exactly its line;
	# the tools, "public", list what they may name themselves)
	for (k in ok) {
		split(k, lu, SUBSEP)
		if ((lu[1], "public") in ok)
			continue
		for (k2 in ok) {
			split(k2, uv, SUBSEP)
			if (uv[1] == lu[2] && uv[2] != "public" && !((lu[1], uv[2]) in ok)) {
				printf "layers: layers.txt: %s uses %s, which uses %s: add %s to %s\n",
					lu[1], lu[2], uv[2], uv[2], lu[1]
				bad++
			}
		}
	}
	nb = 0
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++) {
			a = nodes[i]; b = nodes[j]
			if (!((a, b) in edge) || ((a, b) in ok))
				continue
			printf "layers: %s -> %s is against the matrix:%s\n", a, b, reason[a, b]
			nb++
		}
	# cycles: the transitive closure (a few dozen nodes), then the sets that reach each other
	for (i = 1; i <= n; i++)
		for (j = 1; j <= n; j++)
			r[i, j] = ((nodes[i], nodes[j]) in edge)
	for (k = 1; k <= n; k++)
		for (i = 1; i <= n; i++)
			if (r[i, k])
				for (j = 1; j <= n; j++)
					if (r[k, j])
						r[i, j] = 1
	nc = 0
	for (i = 1; i <= n; i++) {
		if (done[i] || !r[i, i])
			continue
		set = ""
		for (j = 1; j <= n; j++)
			if (r[i, j] && r[j, i]) {
				set = set " " nodes[j]
				done[j] = 1
			}
		printf "layers: cycle:%s\n", set
		nc++
	}
	ne = 0
	for (e in edge) {
		ne++
		if (report == 2) {
			split(e, ab, SUBSEP)
			printf "layers: edge %s -> %s\n", ab[1], ab[2]
		}
	}
	printf "layers: %d directories, %d edges, %d against the matrix, %d cycles\n",
		n, ne, nb, nc
	if ((nb || nc || bad || badhdr) && !report)
		exit 1
}' "$matrix" "$tmp/syms" "$tmp/incs"
