I=/sys/kernel/tracing/instances/trg-$$
mkdir $I || exit 1
T=$I/events/sched/sched_switch/trigger
w() { echo "== $1"; echo "$1" > $T 2>/tmp/trgerr; echo "rc=$? $(tr '\n' ' ' </tmp/trgerr)"; cat $T | sed 's/^/  /'; }
w 'traceoff'
w 'traceoff:5'
w '!traceoff'
w 'traceon:5 if prev_pid > 1'
w 'traceon'
w 'traceoff'
w '!traceon'
w 'enable_event:sched:sched_wakeup'
w 'enable_event:sched:sched_wakeup:3'
w 'disable_event:sched:sched_wakeup'
w 'disable_event:sched:sched_waking:2 if next_pid == 0'
w '!enable_event:sched:sched_wakeup'
w '!disable_event:sched:sched_waking'
w 'bogus'
w 'traceon:abc'
w 'traceon if nosuch == 1'
w 'enable_event:nosys:noev'
w 'enable_event:sched'
w '!traceon'
w 'traceon:0'
w 'traceon:'
w 'traceon junk'
w 'traceon:3:4'
w 'traceoff  if prev_pid==0'
w 'enable_event:sched:sched_switch'
cat $I/events/sched/sched_wakeup/enable
echo "--- error_log"; cat $I/error_log
for t in $I/events/*/*/trigger; do grep -v '^#' $t | while read l; do echo "!${l%% *}" > $t 2>/dev/null; done; done
echo "--- leftover"; grep -v '^#' $I/events/sched/*/trigger
rmdir $I && echo removed
