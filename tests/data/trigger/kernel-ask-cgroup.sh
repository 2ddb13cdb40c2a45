#!/bin/bash
# Ask the kernel what its trigger file says to each command of cmds.txt, on an event that does
# not fire (cgroup:cgroup_remount), in an instance of its own that is removed at the end.
# Output: kernel-cgroup_remount.txt ("> cmd", "= errno-name", then the file's lines).
D=$(dirname "$0")
I=/sys/kernel/tracing/instances/trg-$$
mkdir $I || exit 1
T=$I/events/cgroup/cgroup_remount/trigger
while IFS= read -r c; do
	echo "> $c"
	if echo "$c" > $T 2>/tmp/trg-err.$$; then echo "= 0"
	elif grep -q "File exists" /tmp/trg-err.$$; then echo "= EEXIST"
	else echo "= EINVAL"; fi
	grep -v '^#' $T
done < $D/cmds.txt
rm -f /tmp/trg-err.$$
for t in $I/events/cgroup/*/trigger; do
	grep -v '^#' $t | while read -r l; do echo "!${l%%:*}" > $t; done
done
rmdir $I
