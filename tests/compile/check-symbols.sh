#!/bin/sh
# Every symbol the shared library exports must be evt_*: nothing of src/ leaks.
lib="$1"
bad=$(nm -D --defined-only "$lib" | awk '$2 ~ /[TDBRVW]/ {print $3}' | grep -v '^evt_' | grep -v '^EVTRACE_')
if [ -n "$bad" ]; then
	echo "non-evt_ symbols exported:"; echo "$bad"; exit 1
fi
echo "exported: $(nm -D --defined-only "$lib" | grep -c ' evt_') evt_* symbols"
