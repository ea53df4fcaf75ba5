// SPDX-License-Identifier: GPL-3.0-or-later
/*
 * The index of the stack table's nodes (stack_nodes_internal.h): open
 * addressing with linear probing over slots that hold the whole key.
 * Up to seven tenths full: a slot is 24 bytes, so a node costs about
 * twice that, and a probe sequence still ends within a line or two.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include <oputil/hash.h>

#include "stack_nodes_internal.h"

static size_t nodes_home(const struct ops_stack_nodes *t, uint32_t parent,
			 uint8_t flags, uint32_t kind, uint32_t image,
			 uint64_t addr)
{
	uint64_t k = (uint64_t)parent << 32 ^ (uint64_t)image << 4 ^
		     (uint64_t)kind << 2 ^ flags;

	return (size_t)oputil_hash_word64(oputil_hash_u64(k), addr) &
	       (t->cap - 1);
}

static bool nodes_eq(const struct ops_stack_node_slot *s, uint32_t parent,
		     uint8_t flags, const struct ops_frame *f)
{
	return s->addr == f->addr && s->parent == parent &&
	       s->image == f->image && s->kind == f->kind && s->flags == flags;
}

int ops_stack_nodes_reserve(struct ops_stack_nodes *t)
{
	struct ops_stack_node_slot *slots;
	size_t cap = t->cap ? t->cap * 2 : 512, i, j;

	if ((t->nr + 1) * 10 <= t->cap * 7)
		return 0;
	if (cap > SIZE_MAX / 2 / sizeof(*slots))
		return -ENOMEM;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		const struct ops_stack_node_slot *s = &t->slots[i];

		if (!s->node)
			continue;
		j = nodes_home(&(struct ops_stack_nodes){ .cap = cap },
			       s->parent, s->flags, s->kind, s->image,
			       s->addr);
		while (slots[j].node)
			j = (j + 1) & (cap - 1);
		slots[j] = *s;
	}
	free(t->slots);
	t->slots = slots;
	t->cap = cap;
	return 0;
}

uint32_t ops_stack_nodes_find(const struct ops_stack_nodes *t, uint32_t parent,
			      uint8_t flags, const struct ops_frame *f,
			      struct ops_stack_nodes_pos *pos)
{
	size_t i = nodes_home(t, parent, flags, f->kind, f->image, f->addr);

	for (; t->slots[i].node; i = (i + 1) & (t->cap - 1)) {
		if (nodes_eq(&t->slots[i], parent, flags, f))
			return t->slots[i].node - 1;
	}
	pos->slot = i;
	return UINT32_MAX;
}

void ops_stack_nodes_put(struct ops_stack_nodes *t,
			 const struct ops_stack_nodes_pos *pos,
			 uint32_t parent, uint8_t flags,
			 const struct ops_frame *f, uint32_t id)
{
	t->slots[pos->slot] = (struct ops_stack_node_slot){
		.addr = f->addr,
		.parent = parent,
		.image = f->image,
		.node = id + 1,
		.kind = (uint8_t)f->kind,
		.flags = flags,
	};
	t->nr++;
}

void ops_stack_nodes_free(struct ops_stack_nodes *t)
{
	free(t->slots);
	t->slots = NULL;
	t->cap = t->nr = 0;
}
