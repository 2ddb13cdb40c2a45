#!/bin/sh
# Every public function (evt_* declared in include/evtrace/*.h) has a man page in man/man3,
# its own or a .so link to the page that documents it with others.
top=${1:-.}
missing=0
for f in $(grep -ohE '\bevt_[a-z0-9_]+\(' "$top"/include/evtrace/*.h | tr -d '(' | sort -u); do
	if [ ! -f "$top/man/man3/$f.3" ]; then
		echo "no man page: $f"
		missing=$((missing + 1))
	fi
done
[ $missing -eq 0 ] && echo "every public function has a man page"
[ $missing -eq 0 ]
