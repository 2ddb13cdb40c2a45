#!/bin/bash
# collect kernel read-backs in instances/tfs-<pid>
T=/sys/kernel/tracing
I=$T/instances/tfs-$$
OUT=${1:-/tmp/tfs-out}
mkdir -p $OUT
mkdir $I || exit 1
trap 'echo 0 > $I/events/enable; echo > $I/set_event; echo 0 > $I/events/sched/filter 2>/dev/null; rmdir $I' EXIT
cd $I
ls > $OUT/instance-ls.txt
ls events/sched/sched_switch > $OUT/event-dir-ls.txt
ls events/sched > /dev/null
ls per_cpu/cpu0 > $OUT/per-cpu-ls.txt
sh() { echo "## $*" >> $OUT/set_event.txt; }
: > $OUT/set_event.txt
step() { # desc cmd...
  echo "## $1" >> $OUT/set_event.txt
  shift; ( eval "$@" ) >> $OUT/set_event.txt 2>&1; echo "rc=$?" >> $OUT/set_event.txt
  echo "-- set_event:" >> $OUT/set_event.txt; cat set_event >> $OUT/set_event.txt
  echo "-- enable: events=$(cat events/enable) sched=$(cat events/sched/enable) irq=$(cat events/irq/enable) sched_switch=$(cat events/sched/sched_switch/enable)" >> $OUT/set_event.txt
}
step "append sched:sched_switch" "echo sched:sched_switch >> set_event"
step "append sched_wakeup (no system)" "echo sched_wakeup >> set_event"
step "append !sched_wakeup" "echo '!sched_wakeup' >> set_event"
step "trunc irq:*" "echo 'irq:*' > set_event"
step "append sched:" "echo 'sched:' >> set_event"
step "empty write clears" "echo > set_event"
step "append irq" "echo 'irq' >> set_event"
step "empty" "echo > set_event"
step "append !sched:*" "echo 'sched:*' >> set_event; echo '!sched:*' >> set_event"
step "append two words" "echo 'sched:sched_switch irq:irq_handler_entry' >> set_event"
step "append no such" "echo 'nosuch:event' >> set_event"
step "append no such plain" "echo 'nosuchevent' >> set_event"
step "append *:sched_switch" "echo > set_event; echo '*:sched_switch' >> set_event"
step "append sched:sched_sw*" "echo > set_event; echo 'sched:sched_sw*' >> set_event"
step "trunc via !" "echo 'sched:sched_switch' > set_event; echo '!sched:sched_switch' > set_event"
step "enable via file" "echo > set_event; echo 1 > events/sched/sched_switch/enable"
step "sched enable 1" "echo 1 > events/sched/enable"
step "all enable 0" "echo 0 > events/enable"
step "enable 2" "echo 2 > events/sched/sched_switch/enable"
step "enable x" "echo x > events/sched/sched_switch/enable"
step "all via *:*" "echo '*:*' > set_event; wc -l < set_event"
step "clear" "echo > set_event"
step "printf no newline" "printf 'sched:sched_switch' >> set_event"
step "clear" "printf '' > set_event"
step "spaces and newlines" "printf '  sched:sched_switch \n\n irq:softirq_entry\n' >> set_event"
step "colon only" "echo > set_event; echo ':' >> set_event"
step "comment" "echo > set_event; echo '# foo' >> set_event"
echo > set_event
# enable readbacks
{ echo "## fresh"; cat events/enable events/sched/enable events/sched/sched_switch/enable;
  echo 1 > events/sched/sched_switch/enable; echo "## one"; cat events/enable events/sched/enable events/sched/sched_switch/enable;
  echo 0 > events/enable; } > $OUT/enable.txt 2>&1
# buffer_size_kb
{ echo "## initial"; cat buffer_size_kb buffer_total_size_kb;
  echo 100 > buffer_size_kb; echo "## 100"; cat buffer_size_kb buffer_total_size_kb per_cpu/cpu0/buffer_size_kb;
  echo 200 > per_cpu/cpu0/buffer_size_kb; echo "## cpu0 200"; cat buffer_size_kb buffer_total_size_kb per_cpu/cpu0/buffer_size_kb per_cpu/cpu1/buffer_size_kb;
  echo 0 > buffer_size_kb; echo "rc=$?"; cat buffer_size_kb;
  echo abc > buffer_size_kb; echo "rc=$?";
  echo 7 > buffer_size_kb; cat buffer_size_kb; } > $OUT/buffer_size_kb.txt 2>&1
# trace_clock
{ cat trace_clock; echo global > trace_clock; cat trace_clock; echo nosuch > trace_clock; echo "rc=$?"; cat trace_clock; echo local > trace_clock; } > $OUT/trace_clock.txt 2>&1
# tracing_on
{ cat tracing_on; echo 0 > tracing_on; cat tracing_on; echo 5 > tracing_on; cat tracing_on; echo x > tracing_on; echo "rc=$?"; echo 1 > tracing_on; cat tracing_on; } > $OUT/tracing_on.txt 2>&1
# filters
: > $OUT/filter.txt
f() { echo "## write '$1' to $2" >> $OUT/filter.txt; ( echo "$1" > $2 ) >> $OUT/filter.txt 2>&1; echo "rc=$?" >> $OUT/filter.txt; echo "-- read:" >> $OUT/filter.txt; cat $2 >> $OUT/filter.txt; }
F=events/sched/sched_switch/filter
cat $F > $OUT/filter-none.txt
f 'prev_pid == 1' $F
f 'prev_pid == 1 && next_pid > 3' $F
f 'nosuch == 1' $F
f 'prev_pid == 1 &&' $F
f '(prev_pid == 1' $F
f 'prev_comm == 1' $F
f 'prev_pid ~ "a"' $F
f '0' $F
f '' $F
f 'prev_pid == 1' $F
f 'prev_pid == abc' $F
f 'common_pid == 0' events/sched/filter
echo "## sched_switch after common sub" >> $OUT/filter.txt; cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter >> $OUT/filter.txt
f 'prev_pid == 0' events/sched/filter
echo "## after prev_pid sub" >> $OUT/filter.txt; cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter >> $OUT/filter.txt
f 'nosuchfield == 0' events/sched/filter
echo "## after bad sub" >> $OUT/filter.txt; cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter >> $OUT/filter.txt
f '0' events/sched/filter
echo "## after 0 sub" >> $OUT/filter.txt; cat events/sched/sched_switch/filter events/sched/sched_wakeup/filter >> $OUT/filter.txt
cat events/sched/filter >> $OUT/filter.txt
cat error_log > $OUT/error_log.txt
echo > error_log
cat error_log > $OUT/error_log-cleared.txt
cat events/sched/sched_switch/format > $OUT/format-sched_switch.txt
cat events/sched/sched_switch/id > $OUT/id.txt
cat events/sched/sched_switch/trigger > $OUT/trigger.txt
echo 0 > tracing_on 
echo 'hello marker' > trace_marker
cat trace > $OUT/trace-empty-off.txt
echo 1 > tracing_on
echo 'hello marker' > trace_marker
cat trace > $OUT/trace-marker.txt
cat per_cpu/cpu0/stats > $OUT/stats.txt
cat per_cpu/cpu1/stats > $OUT/stats1.txt
cat per_cpu/cpu0/trace > $OUT/per-cpu-trace.txt
echo > trace; cat trace > $OUT/trace-empty.txt
cat saved_cmdlines | head -3 > $OUT/saved_cmdlines.txt
ls events | head -5 > $OUT/events-ls.txt
cat available_events | head -3 > $OUT/available_events.txt
# set_event_pid
{ echo $$ > set_event_pid; cat set_event_pid; echo "1 2" >> set_event_pid; cat set_event_pid; echo > set_event_pid; echo "cleared:"; cat set_event_pid; echo abc > set_event_pid; echo "rc=$?"; } > $OUT/set_event_pid.txt 2>&1
# mkdir under instance
( mkdir instances/x ) > $OUT/nested-mkdir.txt 2>&1; echo "rc=$?" >> $OUT/nested-mkdir.txt
cat trace_pipe > /dev/null & P=$!; sleep 0.2; kill $P
echo 0 > events/enable
