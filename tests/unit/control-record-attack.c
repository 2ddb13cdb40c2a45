// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * control-record-attack: another local user cannot make `evtrace record`
 * delete the victim's files (issue 11, defect 1). The attacker pre-creates
 * the victim's socket directory /tmp/evtrace-UID with mode 0777 (the victim
 * has no XDG_RUNTIME_DIR) and, whenever a record-* session directory
 * appears in it, swaps it for a symbolic link to a directory of the
 * victim's. The victim runs `evtrace record -- CMD`. Then:
 *  - the recorder refuses the socket directory (a warning names it) and
 *    keeps its session elsewhere: the attacker never sees one to swap;
 *  - the record is written, and every file of the victim's directory is
 *    still there;
 *  - `evtrace list` as the victim refuses the directory too (and says so).
 * Before the fix, the session directory was made in the attacker's
 * directory and removed at the end by path, through the link: the victim's
 * files were gone. Needs root (two users of its own); SKIP otherwise.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>

#include <evtrace/control.h>

#include "control-tp.h"

#include "cmd-record-util.h"
#include "sec-util.h"

static char victim_dir[300], squat[64];

/* The attacker: swap every record-* of the squatted directory for a link to the victim's. */
static int attacker(void *arg)
{
	int *swaps_fd = arg;

	(void)umask(0);
	for (int i = 0; i < 60000; i++) { /* at most a minute: the parent kills us sooner */
		DIR *d = opendir(squat);
		struct dirent *de;

		while (d && (de = readdir(d))) {
			char from[400], to[400];

			if (strncmp(de->d_name, "record-", 7) || de->d_type != DT_DIR)
				continue;
			snprintf(from, sizeof(from), "%s/%s", squat, de->d_name);
			snprintf(to, sizeof(to), "%s/moved-%d", squat, i);
			if (rename(from, to) == 0 && symlink(victim_dir, from) == 0 &&
			    write(*swaps_fd, "S", 1) < 0)
				return 3;
		}
		if (d)
			closedir(d);
		usleep(1000);
	}
	return 0;
}

static int make_squat(void *arg)
{
	(void)arg;
	if (mkdir(squat, 0777) < 0 || chmod(squat, 0777) < 0)
		return 1;
	return 0;
}

struct victim_run {
	char **argv;
	const char *errfile;
};

/* The victim: `evtrace ARGS`, stderr to a file, without XDG_RUNTIME_DIR. */
static int victim(void *arg)
{
	struct victim_run *v = arg;
	int fd = open(v->errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int nul = open("/dev/null", O_WRONLY);

	if (fd < 0 || nul < 0)
		return 120;
	dup2(fd, 2);
	dup2(nul, 1);
	unsetenv("XDG_RUNTIME_DIR");
	unsetenv("EVTRACE_CONTROL_DIR");
	execv(EVT_TOOL, v->argv);
	return 127;
}

static void read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);

	T_ASSERT(fd >= 0);
	cmdt_read_all(fd, buf, len);
}

int main(int argc, char **argv)
{
	char self[4096], base[] = "/tmp/evt-attack-XXXXXX", out[400], errf[400], err[8192];
	char precious[400];
	struct sec_user vu, au;
	struct victim_run v;
	int p[2], st, swaps = 0;
	pid_t att;
	char c;

	if (argc > 3 && !strcmp(argv[1], "--child"))
		return crt_child_main(argc, argv);
	crt_begin(self, sizeof(self));
	vu = sec_user("evtsec-victim");
	au = sec_user("evtsec-attacker");
	snprintf(squat, sizeof(squat), "/tmp/evtrace-%u", (unsigned int)vu.uid);
	sec_rm_tree(squat); /* a squat of an earlier run */

	/* the victim's directory with its files, and a place for the record */
	T_ASSERT(mkdtemp(base));
	T_ASSERT(chmod(base, 0755) == 0);
	snprintf(victim_dir, sizeof(victim_dir), "%s/victim", base);
	T_ASSERT(mkdir(victim_dir, 0700) == 0);
	snprintf(precious, sizeof(precious), "%s/precious.txt", victim_dir);
	T_ASSERT(close(open(precious, O_WRONLY | O_CREAT, 0600)) == 0);
	T_ASSERT(chown(victim_dir, vu.uid, vu.gid) == 0 && chown(precious, vu.uid, vu.gid) == 0);
	/* the record and its messages go elsewhere: the victim's directory is the target */
	snprintf(out, sizeof(out), "%s/out", base);
	T_ASSERT(mkdir(out, 0700) == 0 && chown(out, vu.uid, vu.gid) == 0);
	snprintf(errf, sizeof(errf), "%s/out/record.err", base);
	snprintf(out, sizeof(out), "%s/out/trace.dat", base);

	/* the attacker squats the socket directory, then watches it */
	T_ASSERT_EQ(sec_run_as(au, make_squat, NULL), 0);
	T_ASSERT(pipe(p) == 0);
	att = fork();
	T_ASSERT(att >= 0);
	if (att == 0) {
		close(p[0]);
		sec_become(au);
		/* never outlive the test (a failed assertion exits without killing us) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(attacker(&p[1]));
	}
	close(p[1]);

	{
		char *a[] = { "evtrace", "record", "-q",      "-e", "ctltest:*", "-o", out,
			      "--",	 self,	   "--child", "1",  "200",	 NULL };

		v = (struct victim_run){ a, errf };
		st = sec_run_as(vu, victim, &v);
	}
	read_file(errf, err, sizeof(err));
	printf("record as the victim: exit %d, stderr:\n%s", st, err);
	kill(att, SIGKILL);
	waitpid(att, NULL, 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	while (read(p[0], &c, 1) == 1)
		swaps++;
	printf("session directories the attacker swapped: %d\n", swaps);

	T_ASSERT(access(precious, F_OK) == 0); /* the point of it all */
	T_ASSERT_EQ(swaps, 0);
	T_ASSERT_EQ(st, 0);
	T_ASSERT(strstr(err, "refused") && strstr(err, squat));
	T_ASSERT(access(out, F_OK) == 0);

	/* the other verbs refuse the squatted directory too, with a reason */
	{
		char *a[] = { "evtrace", "list", NULL };

		v = (struct victim_run){ a, errf };
		st = sec_run_as(vu, victim, &v);
	}
	read_file(errf, err, sizeof(err));
	printf("list as the victim: exit %d, stderr: %s", st, err);
	T_ASSERT(strstr(err, "refused") && strstr(err, "uid"));

	sec_rm_tree(squat);
	sec_rm_tree(base);
	printf("PASS\n");
	return 0;
}
