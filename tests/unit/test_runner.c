/* SPDX-License-Identifier: MIT */
/*
 * The perf layer's runner (mf_perf_child_run), the one fork/hold/exec/wait of
 * `stat` and `measure`: the program is held until the open hook returns, never
 * run when it fails, its status and exec failure come back, the wait and tick
 * hooks run while it runs, a failing hook kills it, and the signals are held
 * and restored.
 */
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "testutil.h"

struct probe_ctx {
	char marker[64]; /* the file the program creates when it runs */
	int opens, waits, ticks;
	bool ran_before_open; /* the marker existed when open was called */
	int open_rc, tick_rc;
	bool int_ignored; /* SIGINT was ignored while the program ran */
	bool raise_term;  /* tick raises SIGTERM in the parent */
};

static bool exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static int h_open(void *vctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct probe_ctx *c = vctx;
	c->opens++;
	assert_true(ch->pid > 0);
	/* The child is held: give it time to run if it were not, then look. */
	usleep(100000);
	c->ran_before_open = exists(c->marker);
	if (c->open_rc)
		return mf_error_set(err, c->open_rc, "test", 0, 0, "cannot open");
	return 0;
}

static int h_wait(void *vctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct probe_ctx *c = vctx;
	struct sigaction sa;
	(void)ch, (void)err;
	c->waits++;
	sigaction(SIGINT, NULL, &sa);
	c->int_ignored = sa.sa_handler == SIG_IGN;
	usleep(20000);
	return 0;
}

static int h_tick(void *vctx, struct mf_perf_child *ch, struct mf_error *err)
{
	struct probe_ctx *c = vctx;
	(void)ch;
	c->ticks++;
	if (c->raise_term && c->ticks == 1)
		raise(SIGTERM);
	if (c->tick_rc)
		return mf_error_set(err, c->tick_rc, "test", 0, 0, "tick failed");
	return 0;
}

static void init(struct probe_ctx *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->marker, sizeof(c->marker), "/tmp/mfstat-runner-%ld", (long)getpid());
	unlink(c->marker);
}

/* No child left unreaped. */
static void no_child_left(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void held_then_run(void **state)
{
	struct probe_ctx c;
	struct mf_perf_child ch;
	struct mf_perf_hooks h;
	struct mf_error e;
	char cmd[128];
	char *argv[] = {"sh", "-c", cmd, NULL};
	(void)state;
	init(&c);
	snprintf(cmd, sizeof(cmd), ": > %s; exit 7", c.marker);
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	h = (struct mf_perf_hooks){&c, h_open, NULL, NULL};
	mf_error_clear(&e);
	assert_int_equal(mf_perf_child_run(&ch, &h, &e), 0);
	assert_int_equal(c.opens, 1);
	assert_false(c.ran_before_open);
	assert_true(exists(c.marker));
	assert_true(WIFEXITED(ch.status));
	assert_int_equal(WEXITSTATUS(ch.status), 7);
	assert_int_equal(ch.exec_errno, 0);
	assert_true(ch.start_us > 0);
	assert_true(ch.wall >= 0 && ch.wall < 10);
	assert_int_equal(ch.pidfd, -1); /* closed again */
	unlink(c.marker);
	no_child_left();
}

static void open_fails(void **state)
{
	struct probe_ctx c;
	struct mf_perf_child ch;
	struct mf_perf_hooks h;
	struct mf_error e;
	char cmd[128];
	char *argv[] = {"sh", "-c", cmd, NULL};
	(void)state;
	init(&c);
	c.open_rc = MF_ENOTCOUNTED;
	snprintf(cmd, sizeof(cmd), ": > %s", c.marker);
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	h = (struct mf_perf_hooks){&c, h_open, h_wait, h_tick};
	mf_error_clear(&e);
	assert_int_equal(mf_perf_child_run(&ch, &h, &e), MF_ENOTCOUNTED);
	assert_string_equal(e.msg, "cannot open");
	assert_int_equal(c.waits + c.ticks, 0);
	usleep(100000);
	assert_false(exists(c.marker)); /* the program never ran */
	no_child_left();
}

static void cannot_exec(void **state)
{
	struct mf_perf_child ch;
	struct mf_perf_hooks h = {NULL, NULL, NULL, NULL};
	struct mf_error e;
	char *argv[] = {"/nonexistent/mfstat-prog", NULL};
	(void)state;
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	mf_error_clear(&e);
	assert_int_equal(mf_perf_child_run(&ch, &h, &e), MF_ENOEXEC);
	assert_int_equal(ch.exec_errno, ENOENT);
	assert_string_equal(e.file, "/nonexistent/mfstat-prog");
	assert_non_null(strstr(e.msg, "cannot run /nonexistent/mfstat-prog: "));
	no_child_left();
}

static void hooks_while_running(void **state)
{
	struct probe_ctx c;
	struct mf_perf_child ch;
	struct mf_perf_hooks h;
	struct mf_error e;
	struct sigaction mine, now;
	char *argv[] = {"sleep", "0.3", NULL};
	(void)state;
	init(&c);
	memset(&mine, 0, sizeof(mine));
	mine.sa_handler = SIG_DFL;
	sigaction(SIGINT, &mine, NULL);
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	h = (struct mf_perf_hooks){&c, h_open, h_wait, h_tick};
	mf_error_clear(&e);
	assert_int_equal(mf_perf_child_run(&ch, &h, &e), 0);
	assert_true(c.waits >= 3);
	assert_true(c.ticks >= 2 && c.ticks <= c.waits);
	assert_true(c.int_ignored);
	assert_true(WIFEXITED(ch.status) && WEXITSTATUS(ch.status) == 0);
	assert_true(ch.wall >= 0.25);
	sigaction(SIGINT, NULL, &now);
	assert_true(now.sa_handler == SIG_DFL); /* restored */
	no_child_left();
}

static void tick_fails_kills(void **state)
{
	struct probe_ctx c;
	struct mf_perf_child ch;
	struct mf_perf_hooks h;
	struct mf_error e;
	char *argv[] = {"sleep", "30", NULL};
	(void)state;
	init(&c);
	c.tick_rc = MF_EIO;
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	h = (struct mf_perf_hooks){&c, NULL, h_wait, h_tick};
	mf_error_clear(&e);
	assert_int_equal(mf_perf_child_run(&ch, &h, &e), MF_EIO);
	assert_string_equal(e.msg, "tick failed");
	assert_int_equal(c.ticks, 1);
	assert_true(WIFSIGNALED(ch.status) && WTERMSIG(ch.status) == SIGKILL);
	assert_true(ch.wall < 10);
	no_child_left();
}

/* forward_term: SIGTERM to the caller goes to the program, and the caller lives on. */
static void term_forwarded(void **state)
{
	struct probe_ctx c;
	struct mf_perf_child ch;
	struct mf_perf_hooks h;
	struct mf_error e;
	struct sigaction before, now;
	char *argv[] = {"sleep", "30", NULL};
	(void)state;
	init(&c);
	c.raise_term = true;
	sigaction(SIGTERM, NULL, &before);
	memset(&ch, 0, sizeof(ch));
	ch.argv = argv;
	ch.forward_term = true;
	h = (struct mf_perf_hooks){&c, NULL, h_wait, h_tick};
	mf_error_clear(&e);
	assert_int_equal(mf_perf_child_run(&ch, &h, &e), 0);
	assert_true(WIFSIGNALED(ch.status) && WTERMSIG(ch.status) == SIGTERM);
	assert_true(ch.wall < 10);
	sigaction(SIGTERM, NULL, &now);
	assert_true(now.sa_handler == before.sa_handler); /* restored */
	no_child_left();
}

/* What perf_event_open's errno values mean: one table for stat, measure and the probe. */
static void errno_texts(void **state)
{
	(void)state;
	assert_string_equal(mf_perf_errno_name(ENOENT), "ENOENT");
	assert_string_equal(mf_perf_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(mf_perf_errno_name(EDOM), "error");
	assert_string_equal(mf_perf_errno_text(ENOENT),
			    "ENOENT: the kernel has no such event here (no hardware counter for it)");
	assert_non_null(strstr(mf_perf_errno_text(EACCES), "perf_event_paranoid"));
	assert_string_equal(mf_perf_errno_text(EDOM), strerror(EDOM));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(errno_texts),         cmocka_unit_test(held_then_run),
		cmocka_unit_test(open_fails),          cmocka_unit_test(cannot_exec),
		cmocka_unit_test(hooks_while_running), cmocka_unit_test(tick_fails_kills),
		cmocka_unit_test(term_forwarded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
