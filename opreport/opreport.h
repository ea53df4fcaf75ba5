/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The options of one opreport run, as options.c parsed them.  Every
 * other file of the report reads them and none changes them.
 */
#ifndef OPREPORT_OPREPORT_H
#define OPREPORT_OPREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "anon_handlers.h"
#include "timerange.h"

enum opreport_format {
	OUT_TEXT,
	OUT_CSV,
	OUT_JSON,
	OUT_FOLDED,
	OUT_PPROF,
	OUT_HTML,
	OUT_TIMELINE_CSV,
	OUT_TIMELINE_JSON
};

/* --event: what the samples count */
enum opreport_event {
	OPREPORT_EVENT_CPU,   /* CPU samples (the default) */
	OPREPORT_EVENT_ALLOC, /* the JVM's allocation samples */
	OPREPORT_EVENT_LOCK,  /* the JVM's contended monitor enters */
};

enum opreport_sort {
	SORT_SAMPLE,
	SORT_IMAGE,
	SORT_APP,
	SORT_SYMBOL,
	SORT_DEBUG,
	SORT_VMA,
};

/* --merge bits: which separations are folded together. */
#define MERGE_LIB 0x1u	/* libraries counted once, whatever the app */
#define MERGE_TGID 0x2u /* processes folded together */
#define MERGE_CPU 0x4u	/* CPUs folded together */
#define MERGE_ALL (MERGE_LIB | MERGE_TGID | MERGE_CPU)

enum opreport_demangle { DEMANGLE_NONE, DEMANGLE_NORMAL, DEMANGLE_SMART };

/* How folded frames are marked: flamegraph.pl's suffixes (_[k] kernel,
 * _[j] JIT, _[i] inlined), or plain names for tools that show the text
 * as it is (speedscope). */
enum opreport_folded_marks { FOLDED_MARKS_FLAMEGRAPH, FOLDED_MARKS_NONE };

struct profile_spec;

struct opreport_opts {
	const char *session_dir;
	const char *output_file;
	enum opreport_format format;
	enum opreport_event event; /* --event */
	/* --event=NAME of an event oprofiled recorded (-e), or NULL: the
	 * session's first (cpu-clock when it has it) */
	const char *session_event;
	bool symbols;		/* -l */
	bool debug_info;	/* -g */
	bool details;		/* -d */
	bool show_address;	/* -w */
	bool exclude_dependent; /* -x */
	bool no_header;		/* -n */
	bool long_filenames;	/* -f */
	bool global_percent;	/* -% */
	bool force;		/* --force: -o may replace a file */
	bool reverse_sort;	/* -r */
	bool callgraph;		/* -c */
	bool children;		/* --children */
	bool no_unwind;		/* --no-unwind */
	double threshold;	/* percent, 0 = none */
	enum opreport_sort sort[8];
	size_t nr_sort;
	unsigned merge; /* MERGE_* */
	/* --separate=thread: JIT rows split by the thread each sample
	 * carries (native histograms keep none) */
	bool separate_thread;
	enum opreport_demangle demangle;
	enum opreport_folded_marks folded_marks;
	char **include_symbols; /* NULL-terminated, or NULL */
	size_t nr_include_symbols;
	char **exclude_symbols;
	size_t nr_exclude_symbols;
	char **image_path; /* -p directories, NULL-terminated, or NULL */
	size_t nr_image_path;
	bool anon_samples;
	char **anon_handlers; /* claim order, NULL-terminated, or NULL */
	size_t nr_anon_handlers;
	const char *handler_path;
	const char *debug_dir; /* root of separate debug files */
	struct profile_spec *spec;
	/* A differential profile: the baseline's session and spec (from
	 * --diff=DIR or the first of "{ ... } { ... }"); session_dir and
	 * spec are then the new profile's.  NULL base_dir: no diff. */
	const char *base_dir;
	struct profile_spec *base_spec;
	bool list_handlers;		 /* --list-handlers: list and exit */
	struct anon_isolation isolation; /* --handler-isolation, -timeout */
	/* opannotate: a JIT row per code object (each generation of a
	 * function its own), not per name */
	bool jit_objects;
	/* opannotate: lines for the sampled addresses (-d -g), none for
	 * the symbols' own start, which it never shows and which can cost
	 * a scan of an image's symbols each */
	bool no_symbol_lines;
	struct timerange time; /* --time */
};

#endif
