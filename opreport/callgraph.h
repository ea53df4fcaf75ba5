/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The resolved call graph: one model that -c, --format=folded, pprof and
 * json are views of.  Raw stacks (frames as the session keeps them:
 * image and file offset, kernel address, or an address in a process's
 * anonymous memory) and their samples, each with its time, are added;
 * then every frame is named by the machinery that names a flat sample:
 * each ELF image in one sorted batch through image_bfd, the kernel
 * through kallsyms, each process's anonymous frames in one sorted
 * (address, time) batch through the handler that claims it.  The stacks
 * are a tree, as the session keeps them: a frame in a file or the kernel
 * is named once per distinct (image, address), an anonymous one once
 * per sample, at the sample's time (callgraph_input.h).  Caller frames are looked up at their
 * return address - 1, so that a call at the very end of a function is not
 * named after the next one.
 *
 * A node is a function as the outputs show it: (kind, image, app,
 * process, symbol), separated as --merge says.  Stacks are unique lists
 * of nodes, root first, with their sample counts.  A JIT frame whose
 * handler knows inlining (handler ABI 1.2) becomes several: the function
 * the code was compiled from, then each function inlined into the one
 * before it, down to the innermost, which the flat profile names.
 *
 * A frame also has a site: the source line at the frame's own address
 * (the line executing for the leaf, the line of the call for a caller,
 * looked up at return address - 1, and for a function another was
 * inlined into, the line where it was).  Functions are what -c, folded
 * and json show, so their stacks are unique by function; pprof places
 * samples at lines, so it reads the same samples split by site too.
 */
#ifndef OPREPORT_CALLGRAPH_H
#define OPREPORT_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>

#include "anon_handlers.h"
#include "report.h"

struct image_cache;
struct cg_input;
struct kallsyms;

/* the most functions one address is said to be inlined into */
#define CG_INLINE_MAX 64

/* cg_raw_frame.image for an address in anonymous memory, and for one in
 * no mapping the recorder knew */
#define CG_ANON UINT32_MAX
#define CG_UNKNOWN (UINT32_MAX - 1)
#define CG_NONE UINT32_MAX

struct cg_raw_frame {
	uint32_t image; /* session image id, CG_ANON or CG_UNKNOWN */
	uint64_t addr;	/* file offset, kernel address, or virtual address */
};

/* The session's frame F as the graph takes it. */
static inline struct cg_raw_frame cg_raw_frame_of(const struct ops_frame *f)
{
	return (struct cg_raw_frame){ f->kind == OPS_FRAME_IMAGE  ? f->image
				      : f->kind == OPS_FRAME_ANON ? CG_ANON
								  : CG_UNKNOWN,
				      f->addr };
}

/* Whose stack it is. */
struct cg_raw_ctx {
	uint32_t app;  /* image id of the application, or CG_NONE */
	uint32_t proc; /* process id of anonymous frames, or CG_NONE */
	uint32_t tgid;
};

struct cg_node {
	enum row_kind kind;
	const char *image;   /* interned: path, or the anon/jit label */
	const char *app;     /* NULL under --merge=lib */
	const char *handler; /* ROW_JIT: the handler that named it */
	uint32_t tgid;	     /* 0 when not separated */
	uint32_t image_id;   /* session image, CG_NONE (anon, jit) or
			      * CG_UNKNOWN (in no known mapping) */
	const struct report_sym *sym;
	uint64_t self;	/* samples with this node as leaf */
	uint64_t total; /* samples with this node anywhere on the stack */
};

/* Where in its function a frame is.  Lines come from DWARF with -g
 * for ELF images, and from the handler for JIT code; the kernel has
 * none.  Site 0 is the unknown one. */
struct cg_site {
	const char *file; /* interned; NULL when not known */
	uint32_t line;	  /* 0 when not known */
};

/* Samples of a stack in one time slice (OPS_SLICE_NS long, counted from
 * the session's start, as the timeline's buckets are). */
struct cg_slice {
	uint32_t slice;
	uint64_t count;
};

/* the slice of samples counted with no time (in a session recorded
 * before time slices) */
#define CG_NO_SLICE UINT32_MAX

struct cg_stack {
	const uint32_t *frames; /* node ids, root first */
	/* per frame: 1 when it was inlined into the frame before it, so
	 * that both are one address (one pprof location) */
	const uint8_t *inlined;
	/* per frame: its index in callgraph.sites; NULL in the stacks
	 * unique by function, which may merge several */
	const uint32_t *sites;
	uint32_t depth;
	uint64_t count;
	/* the time slices of its samples, by slice, each once; samples with
	 * no time (count minus their sum) are in none */
	const struct cg_slice *slices;
	uint32_t nr_slices;
};

struct cg_arc {
	uint32_t from, to; /* caller, callee node ids */
	uint64_t count;
};

struct callgraph {
	struct report *r;
	/* the model, after callgraph_resolve */
	struct cg_node *nodes;
	size_t nr_nodes;
	struct cg_stack *stacks; /* unique by function */
	size_t nr_stacks;
	/* the same samples unique by function and site, sorted so that
	 * those of one entry of stacks are adjacent, in its order */
	struct cg_stack *site_stacks;
	size_t nr_site_stacks;
	struct cg_site *sites;
	size_t nr_sites;
	struct cg_arc *arcs; /* sorted by (from, to) */
	size_t nr_arcs;
	struct cg_arc *rarcs; /* the same, sorted by (to, from) */
	uint64_t total;	      /* samples of the stacks kept */
	uint64_t truncated;   /* samples whose stack was cut */
	struct cg_input *in;  /* raw input, until callgraph_resolve */
	uint32_t *node_ids;   /* storage of cg_stack.frames */
	uint8_t *inlined;     /* storage of cg_stack.inlined */
	uint32_t *site_ids;   /* storage of cg_stack.sites */
	/* storage of cg_stack.slices, of site_stacks and of stacks */
	struct cg_slice *site_slices, *stack_slices;
	/* the session's start, from which samples' times are put in
	 * slices (callgraph_add_samples) */
	uint64_t start_ns;
};

/* 0 or -ENOMEM (not reported). */
int callgraph_new(struct callgraph **out, struct report *r);
void callgraph_free(struct callgraph *cg);

/*
 * Take session S's stack table as the graph's first stacks, stack I of
 * the table stack I here: a tree, each frame once however many stacks
 * pass through it.  The graph reads the table's frames and parents
 * from S, without a copy, until callgraph_resolve() has named them:
 * S's stacks are not to be released before.  STOPPED[I] says that
 * stack I's frame is one of a program a kernel frame below it stopped,
 * to be named one byte on (profile.c).  Before any other add.  0, or
 * -ENOMEM (not reported).
 */
int callgraph_add_table(struct callgraph *cg, const struct ops_session *s,
			const bool *stopped);

/* Add stack FRAMES[0..N), leaf first as the kernel gave them (return
 * addresses for all but the leaf), and say in *ID its id: a stack this
 * function added before, or the stacks of its callers, are found and
 * shared, apart from the table's.  0, or -ENOMEM
 * (not reported). */
int callgraph_add_stack(struct callgraph *cg,
			const struct cg_raw_frame *frames, size_t n,
			bool truncated, uint32_t *id);

/* The leaf of stack ID, which callgraph_add_stack gave. */
struct cg_raw_frame callgraph_stack_leaf(const struct callgraph *cg,
					 uint32_t id);

/*
 * Add COUNT samples of CTX with stack ID.  TIME_NS is their time, by
 * which their anonymous frames are named and their time slice is
 * found (counted from cg->start_ns).  0, or -ENOMEM (not reported).
 */
int callgraph_add_samples(struct callgraph *cg, const struct cg_raw_ctx *ctx,
			  uint32_t id, uint64_t time_ns, uint64_t count);

/* One sample with stack ID at TIME_NS of a process whose frames are
 * named by their addresses alone (anon_handlers_timeless()): its time
 * matters only for its slice, so the samples of one stack and slice are
 * summed, one entry for all, until callgraph_sum_flush() adds them as
 * CTX's, in the order they were met.  Not to be mixed with other adds
 * between the two.  0 or -ENOMEM (not reported). */
int callgraph_sum_sample(struct callgraph *cg, uint32_t id, uint64_t time_ns);
int callgraph_sum_flush(struct callgraph *cg, const struct cg_raw_ctx *ctx);

/* Add COUNT samples of CTX with stack ID counted in time slice SLICE
 * (CG_NO_SLICE: none); their stack has no anonymous frame to name at a
 * time.  0, or -ENOMEM (not reported). */
int callgraph_add_counted(struct callgraph *cg, const struct cg_raw_ctx *ctx,
			  uint32_t id, uint32_t slice, uint64_t count);

/* callgraph_add_stack, then callgraph_add_samples of that stack. */
int callgraph_add(struct callgraph *cg, const struct cg_raw_ctx *ctx,
		  const struct cg_raw_frame *frames, size_t n,
		  uint64_t time_ns, uint64_t count, bool truncated);

/* What names the frames. */
struct cg_sources {
	struct ops_session *s;
	struct image_cache *images;
	struct kallsyms *ks;		/* may be NULL: no kernel frames */
	struct anon_handlers *handlers; /* may be NULL */
	/* release the session's stacks (ops_session_release_stacks) once
	 * the graph is done with its table, before the model's last
	 * stages */
	bool release_stacks;
};

/* Whether session S recorded call chains (oprofiled -g). */
bool callgraph_session_has_stacks(const struct ops_session *s);

/* Name every frame and build the model.  0, or a negative errno (not
 * reported): -ENOMEM, or -EINVAL for a frame of an image or process the
 * session does not have.  A handler that fails has been reported by the
 * loader, and its process's frames stay anonymous. */
int callgraph_resolve(struct callgraph *cg, const struct cg_sources *src);

/* Arcs into node ID (its callers) and out of it (its callees). */
const struct cg_arc *callgraph_callers(const struct callgraph *cg, uint32_t id,
				       size_t *n);
const struct cg_arc *callgraph_callees(const struct callgraph *cg, uint32_t id,
				       size_t *n);

#endif
