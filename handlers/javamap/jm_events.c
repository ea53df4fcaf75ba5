// SPDX-License-Identifier: GPL-3.0-or-later
/* The map's event samples as weighted, named stacks. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jm_events.h"
#include "jm_format.h"

#define EV_NAME_MAX 1100 /* a method's name and ":line" */

uint64_t jm_event_weight(const struct jm_event *ev)
{
	if (ev->kind == JM_REC_ALLOC)
		return ev->value > ev->aux ? ev->value : ev->aux;
	return ev->value;
}

int jm_events_walk(struct jm_state *st, unsigned kind, int lines,
		   jm_event_cb cb, void *arg)
{
	const char **frames = NULL;
	char *names = NULL;
	size_t cap = 0;
	int ret = 0;

	for (size_t i = 0; i < st->map.nr_events && !ret; i++) {
		const struct jm_event *ev = &st->map.events[i];
		size_t n = 0;

		if (ev->kind != kind)
			continue;
		if (ev->nr_frames + 1 > cap) {
			size_t ncap = ev->nr_frames + 1;
			const char **nf = realloc(frames, ncap * sizeof(*nf));
			char *nn;

			if (!nf) {
				ret = -ENOMEM;
				break;
			}
			frames = nf;
			nn = realloc(names, ncap * EV_NAME_MAX);
			if (!nn) {
				ret = -ENOMEM;
				break;
			}
			names = nn;
			cap = ncap;
		}
		/* the log has the innermost frame first; a report wants
		 * the root first */
		for (size_t j = ev->nr_frames; j-- > 0;) {
			const struct jm_frame *f =
				&st->map.frames[ev->frame + j];
			const struct jm_method *me =
				jm_state_method(st, f->method);
			char *b = names + n * EV_NAME_MAX;
			uint32_t line =
				me && lines ? jm_method_line(me, f->bci) : 0;

			if (!me)
				snprintf(b, EV_NAME_MAX,
					 "[unknown method %#" PRIx64 "]",
					 f->method);
			else if (line)
				snprintf(b, EV_NAME_MAX, "%s:%" PRIu32,
					 me->name, line);
			else
				snprintf(b, EV_NAME_MAX, "%s", me->name);
			frames[n++] = b;
		}
		frames[n++] = ev->what;
		ret = cb(arg, frames, n, jm_event_weight(ev));
	}
	free(frames);
	free(names);
	return ret;
}
