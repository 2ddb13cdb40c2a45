// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * events-dso: a shared library's events are registered by dlopen() and
 * unregistered by dlclose(); they keep their IDs when the library comes
 * back; records a library left in a buffer still print after it is gone;
 * an enabled event is off again after the round trip (as a kernel module's);
 * loading and unloading over and over while another thread enables,
 * disables and reads keeps the IDs and breaks nothing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "events-util.h"

#ifndef EVT_TEST_DSO
#error "EVT_TEST_DSO: the path of tests/dso/events-dso.so (cmake/EvtEvents.cmake)"
#endif

static void *load(void (**fire)(int))
{
	void *h = dlopen(EVT_TEST_DSO, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		t_fail("dlopen %s: %s", EVT_TEST_DSO, dlerror());
	*(void **)fire = dlsym(h, "evdso_fire");
	T_ASSERT(*fire != NULL);
	return h;
}

static unsigned int id_of(const char *name)
{
	char buf[4096];
	unsigned int id = 0;
	const char *p;

	if (evt_event_format_text("evdso", name, buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "\nID: ");
	T_ASSERT(p && sscanf(p, "\nID: %u", &id) == 1);
	return id;
}

static volatile int stop;

/* Enables and disables evdso:* and reads the trace while the library comes and goes. */
static void *churn(void *arg)
{
	struct evt_instance *inst = arg;
	static char buf[1 << 16];
	int on = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		evt_instance_event_enable(inst, "evdso", NULL, on ^= 1);
		evt_instance_event_state(inst, "evdso", NULL);
		evt_instance_trace_text(inst, -1, buf, sizeof(buf));
		evt_available_events(buf, sizeof(buf));
	}
	return NULL;
}

static void load_unload_loop(struct evt_instance *inst, unsigned int hello, unsigned int bye)
{
	void (*fire)(int);
	pthread_t th;

	pthread_create(&th, NULL, churn, inst);
	for (int i = 0; i < 200; i++) {
		void *h = load(&fire);

		T_ASSERT_EQ(id_of("evdso_hello"), hello);
		T_ASSERT_EQ(id_of("evdso_bye"), bye);
		for (int j = 0; j < 20; j++)
			fire(i);
		T_ASSERT_OK(dlclose(h));
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	T_ASSERT_EQ(evt_event_count("evdso", NULL), 0);
}

int main(void)
{
	struct evt_instance *inst = t_instance("dso");
	void (*fire)(int);
	unsigned int hello, bye;
	const char *t;
	void *h;

	T_ASSERT_EQ(evt_event_count("evdso", NULL), 0);
	h = load(&fire);
	T_ASSERT_EQ(evt_event_count("evdso", NULL), 2);
	hello = id_of("evdso_hello");
	bye = id_of("evdso_bye");
	T_ASSERT(hello >= 32 && bye >= 32 && hello != bye);

	T_ASSERT_EQ(evt_instance_event_enable(inst, "evdso", NULL, true), 2);
	T_ASSERT_EQ(evt_instance_event_state(inst, "evdso", NULL), '1');
	fire(41);
	T_ASSERT_OK(dlclose(h));

	/* gone from the registry; its records still print */
	T_ASSERT_EQ(evt_event_count("evdso", NULL), 0);
	T_ASSERT_EQ(evt_instance_event_state(inst, "evdso", NULL), '?');
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evdso", NULL, true), -EINVAL);
	t = t_trace_text(inst, -1);
	T_ASSERT(strstr(t, "evdso_hello: n=41 who=dso\n"));
	T_ASSERT(strstr(t, "evdso_bye: n=41\n"));

	/* back, with the same IDs, and off */
	h = load(&fire);
	T_ASSERT_EQ(id_of("evdso_hello"), hello);
	T_ASSERT_EQ(id_of("evdso_bye"), bye);
	T_ASSERT_EQ(evt_instance_event_state(inst, "evdso", NULL), '0');
	T_ASSERT_OK(evt_instance_reset(inst));
	fire(1);
	T_ASSERT_EQ(t_consume(inst, NULL, NULL), 0);
	T_ASSERT_EQ(evt_instance_event_enable(inst, "evdso", "evdso_bye", true), 1);
	T_ASSERT_EQ(evt_instance_event_state(inst, "evdso", NULL), 'X');
	fire(2);
	t = t_trace_text(inst, -1);
	T_ASSERT_EQ(t_count(t, "evdso_bye: n=2\n"), 1);
	T_ASSERT_EQ(t_count(t, "evdso_hello"), 0);
	T_ASSERT_OK(dlclose(h));

	load_unload_loop(inst, hello, bye);
	T_ASSERT_OK(evt_instance_destroy(inst));
	return T_PASS;
}
