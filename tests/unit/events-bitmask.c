// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-bitmask: __bitmask(item, nr_bits) with __assign_bitmask() and
 * __get_bitmask() in TP_printk, __cpumask(item) (its format line compared
 * with the kernel's ipi:ipi_send_cpumask when readable), and the __print_hex, __print_hex_str and
 * __print_array helpers. The `format` lines are the kernel's for such fields
 * (__data_loc unsigned long[], size 4, unsigned; the print fmt keeps
 * __get_bitmask(item)); the records hold whole unsigned longs; `trace` prints
 * the kernel's trace_print_bitmask_seq() text (32-bit hex chunks, zero-padded,
 * most significant first, comma-separated), and a trace.dat of the records
 * prints the same through our reader and through `trace-cmd report` (when
 * installed; the oracle part is skipped otherwise).
 */
#include "events-gaps-tp.h"

#include "events-gaps-util.h"

/* The kernel's line for a cpumask field, offset shifted by our 4 bytes of common_tgid. */
static void check_cpumask_format(const char *ours)
{
	char kline[256] = "", want[256];
	FILE *f = fopen("/sys/kernel/tracing/events/ipi/ipi_send_cpumask/format", "r");

	if (!strstr(ours, "\tfield:__data_loc cpumask_t cpumask;\toffset:12;\tsize:4;\tsigned:0;\n"))
		t_fail("cpumask field:\n%s", ours);
	if (!f) {
		printf("no ipi:ipi_send_cpumask format here: kernel line not compared\n");
		return;
	}
	while (fgets(kline, sizeof(kline), f))
		if (strstr(kline, "cpumask_t"))
			break;
	fclose(f);
	{
		char *o = strstr(kline, "offset:");
		int off;

		T_ASSERT(o && sscanf(o, "offset:%d;", &off) == 1);
		snprintf(want, sizeof(want), "%.*soffset:%d%s", (int)(o - kline), kline, off + 4,
			 strchr(o, ';'));
	}
	if (!strstr(ours, want))
		t_fail("kernel's cpumask line (shifted) [%s] not in:\n%s", want, ours);
	printf("cpumask field line as the kernel's ipi_send_cpumask: %s", kline);
}

static void check_format(void)
{
	static char buf[4096];

	T_ASSERT(evt_event_format_text("evgaps", "gaps_bitmask", buf, sizeof(buf)) > 0);
	if (!strstr(buf,
		    "\tfield:int id;\toffset:12;\tsize:4;\tsigned:1;\n"
		    "\tfield:__data_loc unsigned long[] mask;\toffset:16;\tsize:4;\tsigned:0;\n"
		    "\tfield:__data_loc unsigned long[] small;\toffset:20;\tsize:4;\tsigned:0;\n"))
		t_fail("bitmask fields:\n%s", buf);
	if (!strstr(buf, "print fmt: \"id=%d mask=%s small=%s\", REC->id, __get_bitmask(mask), "
			 "__get_bitmask(small)\n"))
		t_fail("bitmask print fmt:\n%s", buf);
	T_ASSERT(evt_event_format_text("evgaps", "gaps_cpumask", buf, sizeof(buf)) > 0);
	check_cpumask_format(buf);
	if (!strstr(buf, "print fmt: \"cpumask=%s id=%d\", __get_cpumask(cpumask), REC->id\n"))
		t_fail("cpumask print fmt:\n%s", buf);
}

struct rec_check {
	int n;
	unsigned int lens[8];
};

static void rec_fn(const void *rec, unsigned int len, void *arg)
{
	struct rec_check *rc = arg;
	uint32_t loc;

	(void)len;
	memcpy(&loc, (const char *)rec + 16, 4);
	if (rc->n < 8)
		rc->lens[rc->n] = loc >> 16;
	rc->n++;
}

int main(void)
{
	struct evt_instance *inst;
	static const unsigned long m2[2] = { 0x1, 0x3 };
	static const unsigned long m1[1] = { (unsigned long)0xdeadbeef12345678ull };
	static const unsigned long m5[1] = { 5 };
	static unsigned long big[64];
	static const uint8_t bytes[3] = { 0xde, 0xad, 0x01 };
	static const uint32_t words[2] = { 1, 0xabcdef };
	struct rec_check rc = { 0 };
	static char cpus_line[2400];

	if (sizeof(unsigned long) != 8)
		t_skip("the expected texts are for 64-bit longs");
	check_format();

	/* the record holds whole unsigned longs: 128 bits -> 16 bytes, 40 -> 8, 0 -> 0 */
	inst = t_instance("bitmask-len");
	T_ASSERT(evt_instance_event_enable(inst, "evgaps", "gaps_bitmask", true) == 1);
	trace_gaps_bitmask(1, m2, 128);
	trace_gaps_bitmask(2, m1, 40);
	trace_gaps_bitmask(3, m5, 0);
	T_ASSERT_EQ(t_consume(inst, rec_fn, &rc), 3);
	T_ASSERT_EQ(rc.lens[0], 16);
	T_ASSERT_EQ(rc.lens[1], 8);
	T_ASSERT_EQ(rc.lens[2], 0);
	T_ASSERT_OK(evt_instance_destroy(inst));

	inst = t_instance("bitmask");
	T_ASSERT(evt_instance_event_enable(inst, "evgaps", "gaps_bitmask", true) == 1);
	T_ASSERT(evt_instance_event_enable(inst, "evgaps", "gaps_hex", true) == 1);
	T_ASSERT(evt_instance_event_enable(inst, "evgaps", "gaps_cpumask", true) == 1);
	trace_gaps_bitmask(1, m2, 128);
	trace_gaps_bitmask(2, m1, 40);
	trace_gaps_bitmask(3, m5, 0);
	trace_gaps_bitmask(4, NULL, 64); /* NULL source: zeros */
	big[0] = 0xf0;
	big[9] = 0x80000000ul;
	trace_gaps_bitmask(5, big, 9 * 64 + 33); /* 10 longs: 20 chunks */
	trace_gaps_hex(bytes, 3, words, 2);
	trace_gaps_hex(bytes, 0, words, 0);
	/* __cpumask: the configured CPUs' bits, whole longs; CPUs 0 and 1 set */
	{
		long ncpu = sysconf(_SC_NPROCESSORS_CONF);
		unsigned long set[16] = { 3 };
		size_t nbytes;

		T_ASSERT(ncpu > 0);
		if (ncpu > 1024)
			ncpu = 1024;
		nbytes = (size_t)(ncpu + 63) / 64 * 8;
		trace_gaps_cpumask(set, 9);
		strcpy(cpus_line, "gaps_cpumask cpumask=");
		for (size_t i = nbytes / 4; i-- > 0;)
			strcat(cpus_line, i ? "00000000," : "00000003");	/* whole longs copied */
		strcat(cpus_line, " id=9");
	}
	{
		static const char *const expect[] = {
			"gaps_bitmask id=1 mask=00000000,00000003,00000000,00000001 "
			"small=00000000,00000001",
			"gaps_bitmask id=2 mask=deadbeef,12345678 small=deadbeef,12345678",
			"gaps_bitmask id=3 mask= small=00000000,00000005",
			"gaps_bitmask id=4 mask=00000000,00000000 small=00000000,00000000",
			"gaps_bitmask id=5 mask=00000000,80000000,00000000,00000000,00000000,"
			"00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
			"00000000,00000000,00000000,00000000,00000000,00000000,00000000,000000f0"
			" small=00000000,000000f0",
			"gaps_hex hex=de ad 01 hexstr=dead01 words={0x1,0xabcdef} "
			"fixed={0x1,0x20,0xffff}",
			"gaps_hex hex= hexstr= words={} fixed={0x1,0x20,0xffff}",
			cpus_line,
		};

		gaps_check_all(inst, "bitmask", expect, (int)(sizeof(expect) / sizeof(expect[0])));
	}
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
