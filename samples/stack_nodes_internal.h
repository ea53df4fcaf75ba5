/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The writer's index of the nodes of its stack table: a node is found by
 * its parent, its flags and its frame, all kept in the node's slot, so
 * that a lookup reads one slot (one cache line, mostly) and nothing else.
 * A sample's stack looks up a node per frame it does not share with the
 * stack before it, in a table that grows with the run: a lookup that
 * went through a slot to a kept hash and then to the record's bytes read
 * three places out of cache for each frame, and its time grew with the
 * table.  The records themselves stay in the keyset that writes them.
 */
#ifndef OPS_STACK_NODES_INTERNAL_H
#define OPS_STACK_NODES_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <opjit/samples.h>

struct ops_stack_node_slot {
	uint64_t addr;
	uint32_t parent; /* the parent's node id + 1, 0 at a root */
	uint32_t image;
	uint32_t node; /* node id + 1, 0: an empty slot */
	uint8_t kind, flags;
};

struct ops_stack_nodes {
	struct ops_stack_node_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

/* Where a find stopped: good until the table next changes. */
struct ops_stack_nodes_pos {
	size_t slot;
};

/* Room for one more node: 0, or -ENOMEM with the table as it was. */
int ops_stack_nodes_reserve(struct ops_stack_nodes *t);
/* The node id of (PARENT, FLAGS, F), or UINT32_MAX with *POS where it
 * would go.  Needs a table with room (ops_stack_nodes_reserve). */
uint32_t ops_stack_nodes_find(const struct ops_stack_nodes *t, uint32_t parent,
			      uint8_t flags, const struct ops_frame *f,
			      struct ops_stack_nodes_pos *pos);
/* Add node ID at POS, where its find stopped, with no change between. */
void ops_stack_nodes_put(struct ops_stack_nodes *t,
			 const struct ops_stack_nodes_pos *pos,
			 uint32_t parent, uint8_t flags,
			 const struct ops_frame *f, uint32_t id);
void ops_stack_nodes_free(struct ops_stack_nodes *t);

#endif /* OPS_STACK_NODES_INTERNAL_H */
