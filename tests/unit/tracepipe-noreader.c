// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * tracepipe-noreader: without a reader nothing is recorded and nothing
 * counted: events return -EPIPE, missed stays 0; the FIFO and the
 * .missed file ("0") exist while the channel does; bad names and
 * options are refused; remove takes the files away.
 */
#include "tracepipe-util.h"

int main(void)
{
	struct evt_tracepipe_opts o = { .dir = tpt_mkdir() };
	struct evt_tracepipe_channel *chan, *c2;
	char fifo[4200], missed[4200];
	struct stat st;
	char data[64] = "hello";

	T_ASSERT_EQ(evt_tracepipe_create_channel_opts("a/b", &o, &chan), -EINVAL);
	T_ASSERT_EQ(evt_tracepipe_create_channel_opts("", &o, &chan), -EINVAL);
	T_ASSERT_EQ(evt_tracepipe_create_channel_opts("..", &o, &chan), -EINVAL);
	o.pages_per_cpu = 3;
	T_ASSERT_EQ(evt_tracepipe_create_channel_opts("x", &o, &chan), -EINVAL);
	o.pages_per_cpu = 0;
	o.flags = 0x80;
	T_ASSERT_EQ(evt_tracepipe_create_channel_opts("x", &o, &chan), -EINVAL);
	o.flags = 0;

	T_ASSERT_OK(evt_tracepipe_create_channel_opts("quiet", &o, &chan));
	snprintf(fifo, sizeof(fifo), "%s/quiet", o.dir);
	snprintf(missed, sizeof(missed), "%s/quiet.missed", o.dir);
	T_ASSERT(!strcmp(evt_tracepipe_path(chan), fifo));
	T_ASSERT_EQ(stat(fifo, &st), 0);
	T_ASSERT(S_ISFIFO(st.st_mode));
	T_ASSERT_EQ(tpt_missed_file(chan), 0);
	T_ASSERT_EQ(evt_tracepipe_readers(chan), 0);

	for (int i = 0; i < 100000; i++)
		T_ASSERT_EQ(evt_tracepipe_event(chan, data, sizeof(data)), -EPIPE);
	T_ASSERT(evt_tracepipe_reserve(chan, 8, &(struct evt_tracepipe_reservation){ 0 }) == NULL);
	T_ASSERT_EQ(evt_tracepipe_missed(chan), 0);
	T_ASSERT_EQ(evt_tracepipe_flush(chan), -EPIPE);

	/* a second channel of the same directory; a name that is a regular file is refused */
	T_ASSERT_OK(evt_tracepipe_create_channel_opts("other", &o, &c2));
	T_ASSERT_EQ(evt_tracepipe_remove_channel(c2), 0);
	{
		char reg[4200];
		int fd;

		snprintf(reg, sizeof(reg), "%s/regular", o.dir);
		fd = open(reg, O_CREAT | O_WRONLY, 0600);
		T_ASSERT(fd >= 0);
		close(fd);
		T_ASSERT_EQ(evt_tracepipe_create_channel_opts("regular", &o, &c2), -EEXIST);
	}

	T_ASSERT_EQ(evt_tracepipe_remove_channel(chan), 0);
	T_ASSERT(access(fifo, F_OK) != 0);
	T_ASSERT(access(missed, F_OK) != 0);
	T_ASSERT_EQ(evt_tracepipe_remove_channel(NULL), -EINVAL);
	return T_PASS;
}
