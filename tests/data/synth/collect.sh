#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# collect.sh: replay commands.txt on the running kernel (as root, CONFIG_SYNTH_EVENTS=y) and
# print each answer in commands.txt's columns, then both listings; removes every event it made.
# Without synthetic events it records that (kernel-live.txt).
T=/sys/kernel/tracing
D=$(dirname "$0")
if [ ! -e $T/synthetic_events ]; then
	echo "# $(uname -r): no $T/synthetic_events (CONFIG_SYNTH_EVENTS is not set)"
	printf 's:evtsynth_probe u64 a\n' >>$T/dynamic_events 2>/tmp/synth-err
	echo "# echo 's:evtsynth_probe u64 a' >> dynamic_events: rc=$? $(cat /tmp/synth-err)"
	exit 0
fi
while IFS='	' read -r file errno msg pos cmd; do
	echo >$T/error_log
	if printf '%s\n' "$cmd" >>$T/$file 2>/tmp/synth-err; then got=0; else
		got=$(sed 's/.*: //' /tmp/synth-err); fi
	log=$(sed -n 's/^\[[^]]*\] synthetic_events: error: //p' $T/error_log)
	printf '%s\t%s\t%s\t%s\n' "$file" "$got" "${log:--}" "$cmd"
done <"$D/commands.txt"
echo "== synthetic_events"; cat $T/synthetic_events
echo "== dynamic_events"; cat $T/dynamic_events
echo >$T/synthetic_events
