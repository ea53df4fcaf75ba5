/* SPDX-License-Identifier: MIT */
/*
 * The one radix sort: entries ordered by a 64-bit key, a byte at a time
 * from the lowest, only over the bytes in which the keys differ (a table
 * of addresses in one image differs in two or three, a list of (stack,
 * time slice) pairs in as few).  Where qsort compares n log n times
 * through a call, this reads each entry once a byte; a big image's
 * symbols (node: 110k) and a report's stack slices were sorted by qsort
 * at a third of opannotate's CPU and a tenth of opreport's.
 */
#ifndef OPUTIL_RADIX_H
#define OPUTIL_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Sort the N entries at A (a pointer to their type) by the key KEY, an
 * expression of type uint64_t in the variable named VAR (a pointer to
 * the entry being keyed, declared here: use a name not otherwise in
 * scope), using TMP (room for N entries of A's type) as the other half:
 * stable, equal keys in the order they came.  Evaluates to A or TMP,
 * whichever holds the sorted entries.
 *
 *	sorted = oputil_radix_sort(v, tmp, n, e, (uint64_t)e->at << 32 |
 *						 e->slice);
 */
#define oputil_radix_sort(a, tmp, n, var, key)                                  \
	({                                                                      \
		__typeof__(&*(a)) oputil_src_ = (a), oputil_dst_ = (tmp),       \
				  oputil_t_;                                    \
		size_t oputil_n_ = (n), oputil_i_, oputil_cnt_[256];            \
		uint64_t oputil_diff_ = 0, oputil_first_ = 0;                   \
		unsigned oputil_sh_;                                            \
		for (oputil_i_ = 0; oputil_i_ < oputil_n_; oputil_i_++) {       \
			const __typeof__(*oputil_src_) *var =                   \
				&oputil_src_[oputil_i_];                        \
			uint64_t oputil_k_ = (key);                             \
			if (!oputil_i_)                                         \
				oputil_first_ = oputil_k_;                      \
			oputil_diff_ |= oputil_k_ ^ oputil_first_;              \
		}                                                               \
		for (oputil_sh_ = 0; oputil_sh_ < 64; oputil_sh_ += 8) {        \
			size_t oputil_sum_ = 0, oputil_b_;                      \
			if (!((oputil_diff_ >> oputil_sh_) & 0xff))             \
				continue;                                       \
			memset(oputil_cnt_, 0, sizeof(oputil_cnt_));            \
			for (oputil_i_ = 0; oputil_i_ < oputil_n_;              \
			     oputil_i_++) {                                     \
				const __typeof__(*oputil_src_) *var =           \
					&oputil_src_[oputil_i_];                \
				oputil_cnt_[((key) >> oputil_sh_) & 0xff]++;    \
			}                                                       \
			for (oputil_b_ = 0; oputil_b_ < 256; oputil_b_++) {     \
				size_t oputil_m_ = oputil_cnt_[oputil_b_];      \
				oputil_cnt_[oputil_b_] = oputil_sum_;           \
				oputil_sum_ += oputil_m_;                       \
			}                                                       \
			for (oputil_i_ = 0; oputil_i_ < oputil_n_;              \
			     oputil_i_++) {                                     \
				const __typeof__(*oputil_src_) *var =           \
					&oputil_src_[oputil_i_];                \
				oputil_dst_[oputil_cnt_[((key) >> oputil_sh_) & \
							0xff]++] =              \
					oputil_src_[oputil_i_];                 \
			}                                                       \
			oputil_t_ = oputil_src_;                                \
			oputil_src_ = oputil_dst_;                              \
			oputil_dst_ = oputil_t_;                                \
		}                                                               \
		oputil_src_;                                                    \
	})

#endif
