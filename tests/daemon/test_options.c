// SPDX-License-Identifier: GPL-3.0-or-later
/* Event names and the command line. */
#include <check.h>
#include <linux/perf_event.h>
#include <stdlib.h>

#include <opjit/samples.h>

#include "evname.h"
#include "options.h"

#include "check_run.h"

START_TEST(test_event_names)
{
	const struct evname *e = evname_find("cpu-clock");

	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->type, PERF_TYPE_SOFTWARE);
	ck_assert_uint_eq(e->config, PERF_COUNT_SW_CPU_CLOCK);
	ck_assert(!evname_is_hardware(e));
	e = evname_find("page-faults");
	ck_assert_uint_eq(e->config, PERF_COUNT_SW_PAGE_FAULTS);
	ck_assert_uint_eq(evname_find("faults")->config, e->config);
	e = evname_find("cycles");
	ck_assert_uint_eq(e->type, PERF_TYPE_HARDWARE);
	ck_assert_uint_eq(e->config, PERF_COUNT_HW_CPU_CYCLES);
	ck_assert(evname_is_hardware(e));
	ck_assert_uint_eq(evname_find("branch-misses")->config,
			  PERF_COUNT_HW_BRANCH_MISSES);
	ck_assert_ptr_null(evname_find("CPU-CLOCK"));
	ck_assert_ptr_null(evname_find("cpu-clock:u"));
	ck_assert_ptr_null(evname_find(""));
}
END_TEST

#define PARSE(o, ...)                                                    \
	({                                                               \
		const char *argv_[] = { "oprofiled", __VA_ARGS__ };      \
		options_parse(o, sizeof(argv_) / sizeof(*argv_), argv_); \
	})

START_TEST(test_defaults_and_command)
{
	struct options o;

	ck_assert_int_eq(PARSE(&o, "--", "ls", "-l"), 0);
	ck_assert_int_eq(o.mode, MODE_COMMAND);
	ck_assert_str_eq(o.command[0], "ls");
	ck_assert_str_eq(o.command[1], "-l");
	ck_assert_ptr_null(o.command[2]);
	ck_assert_str_eq(o.session_dir, "./oprofile_data");
	ck_assert_uint_eq(o.frequency, 4000);
	ck_assert_uint_eq(o.period, 0);
	ck_assert_str_eq(o.event->name, "cpu-clock");
	ck_assert(o.archive_maps);
	ck_assert(!o.no_kernel);
	ck_assert_uint_eq(o.separate, 0);
	ck_assert_str_eq(o.command_line, "oprofiled -- ls -l");
	options_free(&o);
}
END_TEST

START_TEST(test_command_options_left_alone)
{
	struct options o;

	/* without "--" the command's own options are still its own */
	ck_assert_int_eq(PARSE(&o, "--no-kernel", "ls", "--all"), 0);
	ck_assert(o.no_kernel);
	ck_assert_str_eq(o.command[0], "ls");
	ck_assert_str_eq(o.command[1], "--all");
	options_free(&o);
}
END_TEST

START_TEST(test_modes_and_values)
{
	struct options o;

	ck_assert_int_eq(PARSE(&o, "--pid=1234", "--period=10000",
			       "--separate=process,cpu", "--duration=2.5",
			       "--session-dir=/tmp/x", "--no-archive-maps",
			       "--archive-max=2", "--event=task-clock"),
			 0);
	ck_assert_int_eq(o.mode, MODE_PID);
	ck_assert_int_eq(o.pid, 1234);
	ck_assert_uint_eq(o.period, 10000);
	ck_assert_uint_eq(o.frequency, 0);
	ck_assert_uint_eq(o.separate, OPS_SEPARATE_PROCESS | OPS_SEPARATE_CPU);
	ck_assert(o.duration > 2.49 && o.duration < 2.51);
	ck_assert_str_eq(o.session_dir, "/tmp/x");
	ck_assert(!o.archive_maps);
	ck_assert_uint_eq(o.archive_max_bytes, 2u << 20);
	ck_assert_str_eq(o.event->name, "task-clock");
	options_free(&o);
	/* the last of a repeated option wins */
	ck_assert_int_eq(PARSE(&o, "--session-dir=a", "--session-dir=b", "-a"),
			 0);
	ck_assert_str_eq(o.session_dir, "b");
	options_free(&o);
	/* -o and --output are perf record's spelling of --session-dir */
	ck_assert_int_eq(PARSE(&o, "-o", "d", "-a"), 0);
	ck_assert_str_eq(o.session_dir, "d");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--output=d", "-a"), 0);
	ck_assert_str_eq(o.session_dir, "d");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--session-dir=a", "-o", "b", "-a"), 0);
	ck_assert_str_eq(o.session_dir, "b");
	options_free(&o);
	/* --all-cpus, --freq and --count are perf record's spellings of
	 * -a, -F and -c */
	ck_assert_int_eq(PARSE(&o, "--all-cpus", "--freq", "99"), 0);
	ck_assert_int_eq(o.mode, MODE_SYSTEM);
	ck_assert_uint_eq(o.frequency, 99);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--freq=99", "true"), 0);
	ck_assert_uint_eq(o.frequency, 99);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--count", "5000", "--call-graph", "true"),
			 0);
	ck_assert_uint_eq(o.period, 5000);
	ck_assert_uint_eq(o.frequency, 0);
	ck_assert_uint_eq(o.callgraph_depth, 127);
	ck_assert_str_eq(o.command[0], "true");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--freq=99", "--count=5000", "true"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-a", "-F", "99"), 0);
	ck_assert_int_eq(o.mode, MODE_SYSTEM);
	ck_assert_uint_eq(o.frequency, 99);
	options_free(&o);
}
END_TEST

START_TEST(test_bad_options)
{
	struct options o;

	ck_assert_int_eq(PARSE(&o, "--bogus", "--", "true"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--pid=12x"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--pid=-5"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--frequency=0", "--", "true"), -22);
	options_free(&o);
	ck_assert_int_eq(
		PARSE(&o, "--frequency=1", "--period=1", "--", "true"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--duration=nan", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--event=bogus", "-a"), -22);
	options_free(&o);
	/* several events: repeated or listed, each kept in order */
	ck_assert_int_eq(
		PARSE(&o, "-e", "cpu-clock", "-e", "page-faults", "-a"), 0);
	ck_assert_uint_eq(o.nr_events, 2);
	ck_assert_str_eq(o.events[0]->name, "cpu-clock");
	ck_assert_str_eq(o.events[1]->name, "page-faults");
	ck_assert_str_eq(o.event_list, "cpu-clock,page-faults");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-e", "page-faults,cpu-clock", "-e",
			       "context-switches", "-a"),
			 0);
	ck_assert_uint_eq(o.nr_events, 3);
	ck_assert_str_eq(o.event->name, "page-faults");
	ck_assert_str_eq(o.event_list,
			 "page-faults,cpu-clock,context-switches");
	options_free(&o);
	/* call graphs of several events */
	ck_assert_int_eq(PARSE(&o, "-g", "-e", "cpu-clock,faults", "-a"), 0);
	ck_assert_uint_eq(o.nr_events, 2);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-e", "cpu-clock,bogus", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-e", "cpu-clock,cpu-clock", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-e", "cpu-clock,", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--separate=process,foo", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--separate=", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--separate=process,,cpu", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--separate=,cpu", "-a"), -22);
	options_free(&o);
	/* the kernel refuses bit 63: say so before perf_event_open does */
	ck_assert_int_eq(PARSE(&o, "-c", "18446744073709551615", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-c", "9223372036854775808", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-c", "9223372036854775807", "-a"), 0);
	ck_assert_uint_eq(o.period, 9223372036854775807ull);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--session-dir=", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-a", "--", "true"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--no-kernel"), -22);
	options_free(&o);
}
END_TEST

/* -g asks for the kernel's default depth; --callgraph-depth sets it
 * (and implies -g); no option, no call graph. */
START_TEST(test_callgraph)
{
	struct options o;

	ck_assert_int_eq(PARSE(&o, "--", "true"), 0);
	ck_assert_uint_eq(o.callgraph_depth, 0);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-g", "--", "true"), 0);
	ck_assert_uint_eq(o.callgraph_depth, 127);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph", "-a"), 0);
	ck_assert_uint_eq(o.callgraph_depth, 127);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph-depth=2", "--", "true"), 0);
	ck_assert_uint_eq(o.callgraph_depth, 2);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph-depth=0", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph-depth=1024", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph-depth=x", "-a"), -22);
	options_free(&o);
}
END_TEST

/* -g and --callgraph=fp copy no stack, =dwarf 8192 or
 * BYTES (rounded down to 8); perf's --call-graph spelling, with '=' or
 * a word; a command's own --callgraph= is left alone. */
START_TEST(test_callgraph_modes)
{
	struct options o;

	ck_assert_int_eq(PARSE(&o, "-g", "--", "true"), 0);
	ck_assert_uint_eq(o.stack_copy, 0);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--", "true"), 0);
	ck_assert_uint_eq(o.stack_copy, 0);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph=fp", "--", "true"), 0);
	ck_assert_uint_eq(o.callgraph_depth, 127);
	ck_assert_uint_eq(o.stack_copy, 0);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph=dwarf", "-a"), 0);
	ck_assert_uint_eq(o.stack_copy, 8192);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--call-graph=dwarf,1001", "-a"), 0);
	ck_assert_uint_eq(o.stack_copy, 1000);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--call-graph", "dwarf,4096", "true"), 0);
	ck_assert_uint_eq(o.stack_copy, 4096);
	ck_assert_str_eq(o.command[0], "true");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--call-graph", "true"), 0);
	ck_assert_uint_eq(o.callgraph_depth, 127);
	ck_assert_uint_eq(o.stack_copy, 0);
	ck_assert_str_eq(o.command[0], "true");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "-p", "1", "-g", "--callgraph=fp"), 0);
	ck_assert_uint_eq(o.stack_copy, 0);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph=dwarf,512", "prog",
			       "--callgraph=fp"),
			 0);
	ck_assert_uint_eq(o.stack_copy, 512);
	ck_assert_str_eq(o.command[1], "--callgraph=fp");
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph=lbr", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph=dwarf,4", "-a"), -22);
	options_free(&o);
	ck_assert_int_eq(PARSE(&o, "--callgraph=dwarf,65536", "-a"), -22);
	options_free(&o);
}
END_TEST

static Suite *options_suite(void)
{
	Suite *s = suite_create("options");
	TCase *ev = tcase_create("events");
	TCase *cl = tcase_create("command line");
	TCase *cg;

	tcase_add_test(ev, test_event_names);
	tcase_add_test(cl, test_defaults_and_command);
	tcase_add_test(cl, test_command_options_left_alone);
	tcase_add_test(cl, test_modes_and_values);
	tcase_add_test(cl, test_bad_options);
	suite_add_tcase(s, ev);
	suite_add_tcase(s, cl);
	cg = tcase_create("callgraph");
	tcase_add_test(cg, test_callgraph);
	tcase_add_test(cg, test_callgraph_modes);
	suite_add_tcase(s, cg);
	return s;
}

int main(void)
{
	return opjit_check_run(options_suite());
}
