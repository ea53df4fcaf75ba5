// SPDX-License-Identifier: GPL-3.0-or-later
// opjit's flame graph page: the data block (out_html.c) drawn on a
// canvas.  Names are other users' text: they reach the page only
// through canvas fillText and textContent, never as markup.
'use strict';
(function () {
	// when the script started, parsed its data and built its tree
	const tStart = performance.now();
	const KINDS = ['native', 'kernel', 'JIT', 'anonymous'];
	const ROW = 17;
	const data = JSON.parse(document.getElementById('opjit-data').textContent);
	// what a stack's count counts: samples, or an event's weight (bytes, ns)
	const UNIT = ' ' + (data.unit || 'samples');
	const S = data.strings, N = data.nodes;
	const tParsed = performance.now();
	const canvas = document.getElementById('flame');
	const ctx = canvas.getContext('2d');
	const tip = document.getElementById('tip');
	const status = document.getElementById('status');
	const check = { errors: [], requests: [] };

	window.addEventListener('error', function (e) {
		check.errors.push(String(e.message));
	});
	document.addEventListener('securitypolicyviolation', function (e) {
		check.requests.push(String(e.blockedURI));
	});

	// node i of the model: name, kind, image, handler, file, line
	function nodeName(id) { return S[N[6 * id]]; }
	function nodeKind(id) { return N[6 * id + 1]; }

	// A differential page (data.base: the baseline's stacks, its nodes
	// after the profile's) matches frames across the two runs by name,
	// kind and inlining, as folded text does: their addresses, images
	// and processes change from run to run.  A frame's key among its
	// siblings is then that, and on a normal page the frame itself.
	const BASE = data.base || null;
	function keyOf(code) {
		return BASE ? (N[6 * (code >> 1)] * 4 + N[6 * (code >> 1) + 1]) * 2 + (code & 1)
			: code;
	}

	// The stacks as a tree of frames (node * 2 + inlined), root first.
	function Frame(code, parent) {
		this.code = code;
		this.parent = parent;
		this.total = 0;
		this.self = 0;
		this.kids = new Map(); // by keyOf(), for lookups across trees
		this.sorted = null; // kidsOf()
		this.depth = parent ? parent.depth + 1 : 0;
	}
	// where each stack starts in data.stacks, and in data.times when
	// the page says when their samples ran
	const stackAt = [], timesAt = [];
	// stacks are (count, keep, n, n frames) from "v" 2 on: the first
	// keep frames of the stack before, then its own; else (count, depth,
	// frames)
	const PREFIXED = data.v >= 2;
	function stackNext(st, i) {
		return PREFIXED ? i + 3 + st[i + 2] : i + 2 + st[i + 1];
	}
	(function index() {
		const st = data.stacks, tm = data.times;
		for (let i = 0; i < st.length; i = stackNext(st, i))
			stackAt.push(i);
		if (!tm)
			return;
		for (let i = 0; i < tm.length && timesAt.length < stackAt.length; i += 1 + tm[i])
			timesAt.push(i);
		if (timesAt.length !== stackAt.length)
			timesAt.length = 0;
	})();

	// The samples of stack k in buckets [from, to): its "times" list
	// (out_html.c) read from bucket 0, a negative value a skip.
	function stackInRange(k, from, to) {
		const tm = data.times;
		let n = 0, b = 0;
		for (let i = timesAt[k] + 1, end = i + tm[timesAt[k]]; i < end && b < to; i++) {
			const v = tm[i];
			if (v < 0) {
				b -= v;
				continue;
			}
			if (b >= from)
				n += v;
			b++;
		}
		return n;
	}

	// The stacks ST as a tree whose frames are keyed by keyOf(), stack
	// k weighing COUNT(k, its count).  The frames a stack keeps of the
	// last one counted are taken from PATH, not looked up again.
	function grow(st, count) {
		const top = new Frame(-1, null);
		const codes = [], path = [];
		let deepest = 0, valid = 0;
		for (let i = 0, k = 0; i < st.length; i = stackNext(st, i), k++) {
			const keep = PREFIXED ? st[i + 1] : 0;
			const own = PREFIXED ? st[i + 2] : st[i + 1];
			const at = PREFIXED ? i + 3 : i + 2;
			codes.length = keep;
			for (let j = 0; j < own; j++)
				codes.push(st[at + j]);
			if (keep < valid)
				valid = keep;
			const n = count(k, st[i]);
			if (!n)
				continue;
			const depth = codes.length;
			let f = top;
			top.total += n;
			for (let j = 0; j < valid; j++) {
				f = path[j];
				f.total += n;
			}
			for (let j = valid; j < depth; j++) {
				const code = codes[j], key = keyOf(code);
				let kid = f.kids.get(key);
				if (!kid) {
					kid = new Frame(code, f);
					f.kids.set(key, kid);
				}
				kid.total += n;
				path[j] = kid;
				f = kid;
			}
			path.length = depth;
			valid = depth;
			f.self += n;
			if (depth > deepest)
				deepest = depth;
		}
		return { root: top, depth: deepest };
	}
	// the baseline's tree, whole: a range dragged on the strip is of
	// the profile's time, and its shares are compared with the whole
	// baseline's
	const baseGrown = BASE ? grow(BASE.stacks, function (k, n) { return n; }) : null;
	const baseTree = baseGrown ? baseGrown.root : null;
	let maxChange = 0; // the largest change of share drawn, for the colours

	// Each frame drawn against the frame of the same path in the other
	// graph (O, or none): PROF and PROFSELF its samples in the profile
	// (in the range picked), BASE and BASESELF in the baseline, CHANGE
	// the change of its share in points.  F is of the baseline's graph
	// when ISBASE: drawn at the baseline's widths, the frames that are
	// gone from the profile show there.
	function link(f, o, isBase, profTotal) {
		const p = isBase ? o : f, b = isBase ? f : o;
		f.prof = p ? p.total : 0;
		f.profSelf = p ? p.self : 0;
		f.base = b ? b.total : 0;
		f.baseSelf = b ? b.self : 0;
		f.change = 100 * ((profTotal ? f.prof / profTotal : 0) -
			(baseTree.total ? f.base / baseTree.total : 0));
		if (f.code >= 0 && Math.abs(f.change) > maxChange)
			maxChange = Math.abs(f.change);
		for (const k of kidsOf(f))
			link(k, o ? o.kids.get(keyOf(k.code)) : null, isBase, profTotal);
	}

	// The frames of the baseline's graph B that the profile's P lacks,
	// the first of each path only: how many, and their samples.
	function gone(b, p, acc) {
		for (const k of b.kids.values()) {
			const q = p.kids.get(keyOf(k.code));
			if (q) {
				gone(k, q, acc);
				continue;
			}
			acc.frames++;
			acc.samples += k.total;
		}
		return acc;
	}

	// F's callees, widest first as flame graphs read: sorted when first
	// asked for, so that a large profile's first draw sorts only the
	// frames it draws.
	function kidsOf(f) {
		if (!f.sorted)
			f.sorted = Array.from(f.kids.values()).sort(function (a, b) {
				return b.total - a.total || a.code - b.code;
			});
		return f.sorted;
	}

	// The tree of the stacks, each weighing its count, or only its
	// samples in buckets RANGE[0] to RANGE[1] when given.
	function buildTree(range) {
		return grow(data.stacks, range ? function (k) {
			return stackInRange(k, range[0], range[1]);
		} : function (k, n) { return n; });
	}
	const whole = buildTree(null);
	// the profile's graph (whole or of the range picked), and the graph
	// drawn: that one, or on a differential page the baseline's when
	// asked (showBase)
	let prof = whole, showBase = false;
	let root = whole.root, maxDepth = whole.depth;
	let removed = null; // gone(), for the status
	function setView() {
		const t = showBase ? baseGrown : prof;
		root = t.root;
		maxDepth = t.depth;
		if (!BASE)
			return;
		maxChange = 0;
		link(root, showBase ? prof.root : baseTree, showBase, prof.root.total);
		removed = gone(baseTree, prof.root, { frames: 0, samples: 0 });
	}
	setView();
	const tTree = performance.now();

	function frameName(f) {
		return f.code < 0 ? 'all' : nodeName(f.code >> 1);
	}

	function hash(s) {
		let h = 2166136261;
		for (let i = 0; i < s.length; i++)
			h = Math.imul(h ^ s.charCodeAt(i), 16777619);
		return h >>> 0;
	}

	// A differential page: red where the frame's share of the samples
	// grew, blue where it shrank, the deeper the larger the change
	// against the largest drawn (at least 2 points, so that noise
	// stays pale); the same share is white.
	function diffColour(f) {
		const t = Math.min(1, Math.abs(f.change) / Math.max(maxChange, 2));
		if (t < 0.005)
			return 'hsl(0,0%,96%)';
		return 'hsl(' + (f.change > 0 ? 0 : 220) + ',85%,' +
			Math.round(94 - 44 * t) + '%)';
	}

	// Kinds apart: JIT green to teal by handler, native warm, kernel
	// red, inlined violet, anonymous grey; the name varies the shade.
	function colour(f) {
		if (f.code < 0)
			return 'hsl(0,0%,80%)';
		if (BASE)
			return diffColour(f);
		const id = f.code >> 1, kind = nodeKind(id);
		const v = hash(nodeName(id)) % 1000 / 1000;
		if (f.code & 1)
			return 'hsl(' + (265 + 20 * v) + ',55%,' + (68 + 8 * v) + '%)';
		switch (kind) {
		case 2: {
			const h = 100 + hash(S[N[6 * id + 3]] || 'jit') % 5 * 17;
			return 'hsl(' + (h + 10 * v) + ',55%,' + (55 + 12 * v) + '%)';
		}
		case 1:
			return 'hsl(' + (0 + 12 * v) + ',65%,' + (62 + 10 * v) + '%)';
		case 3:
			return 'hsl(0,0%,' + (70 + 10 * v) + '%)';
		default:
			return 'hsl(' + (25 + 25 * v) + ',85%,' + (58 + 10 * v) + '%)';
		}
	}


	// The timeline strip: the session's samples per time bucket, one
	// row per process (the busiest first, the rest summed in one), all
	// rows on one scale.  Dragging picks a range, and the flame graph
	// is drawn again from the samples of that range only (each stack
	// says in which buckets its samples ran); the --time= command that
	// reports the same range is shown beside it.  A double click or
	// Reset shows the whole session again.
	const TL = data.tl || null;
	const tcanvas = document.getElementById('timeline');
	const tctx = tcanvas.getContext('2d');
	const TROW = 22, TMAXROWS = 6;
	let tlRows = [], tlBuckets = 0, tlMax = 0, tlTotal = 0;
	let sel = null; // [first, end) in buckets, or null
	let tlDrawn = { bars: 0, rows: [] };
	// The strip's rows: one per process, or with BYTHREAD one per
	// thread of a process's samples that know their thread (JIT ones,
	// and counted ones of a session recorded per thread) and one for
	// the rest of its samples, which have none.
	function tlBuild(byThread) {
		tlRows = [];
		tlBuckets = 0;
		tlMax = 0;
		tlTotal = 0;
		if (!TL)
			return;
		const per = TL.procs.map(function () { return new Map(); });
		const c = TL.cells;
		for (let i = 0; i + 2 < c.length; i += 3) {
			const m = per[c[i + 1]];
			m.set(c[i], (m.get(c[i]) || 0) + c[i + 2]);
			tlTotal += c[i + 2];
			if (c[i] + 1 > tlBuckets)
				tlBuckets = c[i] + 1;
		}
		const len = Math.ceil(TL.length_s / TL.bucket_s - 1e-9);
		if (len > tlBuckets)
			tlBuckets = len;
		let rows = per.map(function (b, i) { return { name: TL.procs[i], b: b }; });
		if (byThread && TL.threads) {
			// per thread: proc, tid, n, then n values as in "times"
			const th = [], t = TL.threads;
			for (let i = 0; i + 2 < t.length; i += 3 + t[i + 2]) {
				const r = { name: TL.procs[t[i]] + ' tid ' + t[i + 1], b: new Map() };
				const m = per[t[i]];
				let b = 0;
				for (let j = i + 3; j < i + 3 + t[i + 2]; j++) {
					if (t[j] < 0) {
						b -= t[j];
						continue;
					}
					r.b.set(b, t[j]);
					// what is left of the process's row: its samples of no thread
					m.set(b, (m.get(b) || 0) - t[j]);
					b++;
				}
				th.push(r);
			}
			rows.forEach(function (r) { r.name += ' (no thread)'; });
			rows = rows.concat(th);
		}
		rows.forEach(function (r) {
			r.samples = 0;
			r.b.forEach(function (v, k) {
				if (v > 0)
					r.samples += v;
				else
					r.b.delete(k);
			});
		});
		const most = byThread ? 2 * TMAXROWS : TMAXROWS;
		rows = rows.filter(function (r) { return r.samples > 0; })
			.sort(function (a, b) { return b.samples - a.samples; });
		for (let k = 0; k < rows.length; k++) {
			if (k < most - 1 || rows.length === most) {
				tlRows.push(rows[k]);
				continue;
			}
			if (tlRows.length === most - 1)
				tlRows.push({ name: (rows.length - k) + (byThread ? ' more rows' : ' more processes'),
					samples: 0, b: new Map() });
			const o = tlRows[tlRows.length - 1];
			o.samples += rows[k].samples;
			rows[k].b.forEach(function (v, b) { o.b.set(b, (o.b.get(b) || 0) + v); });
		}
		for (const r of tlRows)
			r.b.forEach(function (v) { if (v > tlMax) tlMax = v; });
	}
	let byThread = false;
	tlBuild(byThread);
	const threadsButton = document.getElementById('threads');
	threadsButton.hidden = !(TL && TL.threads);
	threadsButton.addEventListener('click', function () {
		byThread = !byThread;
		this.textContent = byThread ? 'Processes' : 'Threads';
		tlBuild(byThread);
		drawStrip();
	});

	function tlWidth() {
		return Math.max(200, document.body.clientWidth - 16);
	}

	function drawStrip() {
		const strip = document.getElementById('strip');
		if (!TL || !tlBuckets) {
			strip.hidden = true;
			return;
		}
		const width = tlWidth(), height = tlRows.length * TROW + 14;
		const dpr = window.devicePixelRatio || 1;
		tcanvas.width = width * dpr;
		tcanvas.height = height * dpr;
		tcanvas.style.width = width + 'px';
		tcanvas.style.height = height + 'px';
		tctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		tctx.clearRect(0, 0, width, height);
		const bw = width / tlBuckets;
		tlDrawn = { bars: 0, rows: [] };
		tlRows.forEach(function (r, k) {
			const top = k * TROW;
			let bars = 0;
			tctx.fillStyle = 'hsl(' + (210 + 37 * k) % 360 + ',55%,55%)';
			r.b.forEach(function (v, b) {
				const h = Math.max(1, (TROW - 3) * v / tlMax);
				tctx.fillRect(b * bw, top + TROW - 1 - h, Math.max(bw - 0.5, 0.5), h);
				bars++;
			});
			tctx.fillStyle = '#000';
			tctx.font = '11px sans-serif';
			tctx.textBaseline = 'top';
			tctx.fillText(r.name + ' (' + r.samples + ')', 3, top + 1);
			tlDrawn.bars += bars;
			tlDrawn.rows.push({ name: r.name, samples: r.samples, bars: bars });
		});
		// seconds along the bottom
		tctx.fillStyle = '#555';
		tctx.font = '10px sans-serif';
		const secs = tlBuckets * TL.bucket_s;
		const step = Math.max(1, Math.ceil(secs / 10));
		for (let t = 0; t <= secs; t += step)
			tctx.fillText(t + ' s', Math.min(t / secs * width, width - 24), height - 12);
		if (sel) {
			tctx.fillStyle = 'rgba(40,90,200,0.18)';
			tctx.fillRect(sel[0] * bw, 0, (sel[1] - sel[0]) * bw, height);
			tctx.strokeStyle = 'rgb(40,90,200)';
			tctx.strokeRect(sel[0] * bw + 0.5, 0.5, (sel[1] - sel[0]) * bw - 1, height - 1);
		}
	}

	function fmt(s) {
		return (Math.round(s * 1000) / 1000).toString();
	}

	function shellQuote(s) {
		return "'" + s.replace(/'/g, "'\\''") + "'";
	}

	// What range the strip shows, and the command that reports it.
	function showRange() {
		const text = document.getElementById('rangetext');
		const cmd = document.getElementById('rangecmd');
		if (!sel) {
			text.textContent = TL && tlBuckets ? 'drag on the timeline to pick a time range' : '';
			cmd.textContent = '';
			return null;
		}
		let n = 0;
		for (const r of tlRows)
			r.b.forEach(function (v, b) { if (b >= sel[0] && b < sel[1]) n += v; });
		const from = sel[0] * TL.bucket_s, to = sel[1] * TL.bucket_s;
		text.textContent = fmt(from) + ' s to ' + fmt(to) + ' s: ' + n +
			' samples, ' + pct(n, tlTotal) + ' of the timeline; ' +
			(timesAt.length ? 'the flame graph shows this range, as does:'
				: 'the flame graph shows the whole session, this range is:');
		cmd.textContent = 'opreport --session-dir=' + shellQuote(data.title) +
			' --time=' + fmt(from) + ',' + fmt(to) + ' --format=html -o range.html';
		return { start_s: from, end_s: to, samples: n, cmd: cmd.textContent };
	}

	function tlBucketAt(ev) {
		const r = tcanvas.getBoundingClientRect();
		const x = Math.min(Math.max(ev.clientX - r.left, 0), r.width);
		return Math.min(Math.floor(x / r.width * tlBuckets), tlBuckets - 1);
	}
	let dragFrom = -1;
	tcanvas.addEventListener('mousedown', function (ev) {
		dragFrom = tlBucketAt(ev);
		sel = [dragFrom, dragFrom + 1];
		drawStrip();
		showRange();
		ev.preventDefault();
	});
	window.addEventListener('mousemove', function (ev) {
		if (dragFrom < 0)
			return;
		const b = tlBucketAt(ev);
		sel = [Math.min(dragFrom, b), Math.max(dragFrom, b) + 1];
		drawStrip();
		showRange();
	});
	window.addEventListener('mouseup', function () {
		if (dragFrom < 0)
			return;
		dragFrom = -1;
		applyRange();
	});
	tcanvas.addEventListener('dblclick', function () {
		sel = null;
		drawStrip();
		showRange();
		applyRange();
	});

	// The view CHANGE makes, zoomed into the same frame when the new
	// graph has it (else as deep along its path as it goes).
	function keepFocus(change) {
		const path = [];
		for (let a = focus; a.parent; a = a.parent)
			path.unshift(a.code);
		change();
		setView();
		focus = root;
		for (const code of path) {
			const k = focus.kids.get(keyOf(code));
			if (!k)
				break;
			focus = k;
		}
		showStatus();
		draw();
	}

	// The graph of the range picked (or of the whole session).
	function applyRange() {
		keepFocus(function () {
			prof = sel && timesAt.length ? buildTree(sel) : whole;
		});
	}

	let focus = root, icicle = false, regex = null;
	let drawn = []; // what the last draw showed, for hit tests and checks

	function matches(f) {
		return regex !== null && f.code >= 0 && regex.test(frameName(f));
	}

	// Samples under frames that match, each sample once.
	function matchedSamples(f) {
		if (matches(f))
			return f.total;
		let n = 0;
		for (const k of kidsOf(f))
			n += matchedSamples(k);
		return n;
	}

	// TEXT cut to ROOM pixels with an ellipsis: each name measured once,
	// its cut guessed from its mean glyph width and then checked
	const widths = new Map();
	function fit(text, room) {
		let full = widths.get(text);
		if (full === undefined) {
			full = ctx.measureText(text).width;
			widths.set(text, full);
		}
		if (full <= room)
			return text;
		let k = Math.floor(text.length * room / full);
		while (k > 1 && ctx.measureText(text.slice(0, k) + '…').width > room)
			k--;
		return k > 1 ? text.slice(0, k) + '…' : '';
	}

	function draw() {
		const width = Math.max(200, document.body.clientWidth - 16);
		const height = (maxDepth + 1) * ROW + 2;
		const dpr = window.devicePixelRatio || 1;
		canvas.width = width * dpr;
		canvas.height = height * dpr;
		canvas.style.width = width + 'px';
		canvas.style.height = height + 'px';
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, width, height);
		ctx.font = '12px sans-serif';
		ctx.textBaseline = 'middle';
		drawn = [];
		const scale = width / focus.total;
		function y(depth) {
			return icicle ? depth * ROW : height - (depth + 1) * ROW;
		}
		function box(f, x, w) {
			const top = y(f.depth);
			const fill = matches(f) ? 'hsl(300,80%,60%)' : colour(f);
			ctx.fillStyle = fill;
			ctx.fillRect(x, top, Math.max(w - 1, 0.5), ROW - 1);
			let text = '';
			if (w > 30) {
				text = fit(frameName(f), w - 6);
				if (text) {
					ctx.fillStyle = '#000';
					ctx.fillText(text, x + 3, top + ROW / 2);
				}
			}
			drawn.push({ f: f, x: x, w: w, top: top, text: text, fill: fill });
		}
		// the focus's callers span the width, as in every flame graph
		for (let a = focus; a; a = a.parent)
			box(a, 0, width);
		(function kids(f, x) {
			for (const k of kidsOf(f)) {
				const w = k.total * scale;
				if (w >= 0.3) {
					box(k, x, w);
					kids(k, x);
				}
				x += w;
			}
		})(focus, 0);
		showMatched();
		crumbs();
	}

	function pct(n, d) {
		return d ? (100 * n / d).toFixed(2) + '%' : '0%';
	}

	function showMatched() {
		const m = document.getElementById('matched');
		if (regex === null) {
			m.textContent = '';
			return;
		}
		const n = matchedSamples(root);
		let text = 'matched ' + n + UNIT + ', ' + pct(n, root.total);
		// the other graph's too: a function gone from the profile is
		// found in the baseline
		if (BASE) {
			const other = showBase ? prof.root : baseTree;
			const o = matchedSamples(other);
			text += '; ' + (showBase ? 'profile ' : 'baseline ') + o + UNIT +
				', ' + pct(o, other.total);
		}
		m.textContent = text;
	}

	function crumbs() {
		const c = document.getElementById('crumbs');
		const names = [];
		for (let a = focus; a; a = a.parent)
			names.unshift(frameName(a));
		c.textContent = names.join(' → ');
	}

	function at(ev) {
		const r = canvas.getBoundingClientRect();
		const x = ev.clientX - r.left, y = ev.clientY - r.top;
		for (let i = drawn.length - 1; i >= 0; i--) {
			const d = drawn[i];
			if (x >= d.x && x < d.x + d.w && y >= d.top && y < d.top + ROW)
				return d.f;
		}
		return null;
	}

	function signed(x) {
		return (x > 0 ? '+' : '') + x.toFixed(2);
	}

	function describe(f) {
		const lines = [frameName(f)];
		lines.push((showBase ? 'baseline ' : '') + f.total + UNIT + ', ' +
			pct(f.total, root.total) + ' of all' +
			(focus !== root ? ', ' + pct(f.total, focus.total) +
			' of the zoomed frame' : '') + ', self ' + f.self);
		if (BASE) {
			const other = showBase ? 'profile ' + f.prof + UNIT + ', ' +
				pct(f.prof, prof.root.total) + ', self ' + f.profSelf
				: 'baseline ' + f.base + UNIT + ', ' +
				pct(f.base, baseTree.total) + ', self ' + f.baseSelf;
			lines.push(other + '; change ' + signed(f.change) + ' points of share' +
				(f.code >= 0 && !f.prof ? '; only in the baseline' : '') +
				(f.code >= 0 && !f.base ? '; only in the profile' : ''));
		}
		if (f.code >= 0) {
			const id = f.code >> 1, o = 6 * id;
			let kind = KINDS[N[o + 1]] + ((f.code & 1) ? ', inlined' : '');
			if (N[o + 3])
				kind += ', handler ' + S[N[o + 3]];
			lines.push(kind);
			if (N[o + 2])
				lines.push(S[N[o + 2]]);
			if (N[o + 4])
				lines.push(S[N[o + 4]] + (N[o + 5] ? ':' + N[o + 5] : ''));
		}
		return lines.join('\n');
	}

	canvas.addEventListener('mousemove', function (ev) {
		const f = at(ev);
		if (!f) {
			tip.hidden = true;
			return;
		}
		tip.textContent = describe(f);
		tip.hidden = false;
		tip.style.left = Math.min(ev.pageX + 12, document.body.clientWidth - 320) + 'px';
		tip.style.top = ev.pageY + 16 + 'px';
	});
	canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
	canvas.addEventListener('click', function (ev) {
		const f = at(ev);
		if (f) {
			focus = f;
			draw();
		}
	});
	document.getElementById('reset').addEventListener('click', function () {
		focus = root;
		if (sel) {
			sel = null;
			drawStrip();
			showRange();
			applyRange();
			return;
		}
		draw();
	});
	// A differential page draws the profile's graph, or the baseline's
	// at its own widths, so that the frames gone from the profile show
	// (as flamegraph.pl --negate draws them): the colours keep their
	// sense, blue the share that shrank, deepest where all of it went.
	const baseButton = document.getElementById('baseline');
	baseButton.hidden = !BASE;
	baseButton.addEventListener('click', function () {
		keepFocus(function () {
			showBase = !showBase;
			baseButton.textContent = showBase ? 'Profile' : 'Baseline';
		});
	});
	document.getElementById('icicle').addEventListener('click', function () {
		icicle = !icicle;
		this.textContent = icicle ? 'Flame' : 'Icicle';
		draw();
	});
	function setSearch(text) {
		const box = document.getElementById('search');
		box.classList.remove('bad');
		regex = null;
		if (text) {
			try {
				regex = new RegExp(text);
			} catch (e) {
				box.classList.add('bad');
			}
		}
		draw();
	}
	document.getElementById('search').addEventListener('input', function () {
		setSearch(this.value);
	});
	window.addEventListener('resize', function () { drawStrip(); draw(); });

	document.getElementById('title').textContent = BASE
		? 'opjit differential profile: ' + data.title + ' against ' + BASE.title
		: 'opjit profile: ' + data.title;
	document.title = 'opjit: ' + data.title;
	function goneText() {
		return removed.frames + (removed.frames === 1 ? ' frame' : ' frames') +
			' only in the baseline, ' + removed.samples + UNIT;
	}
	function showStatus() {
		const p = prof.root.total + UNIT + (data.event ? ' of ' + data.event : '') +
			(prof !== whole ? ' in the range picked' : '');
		let text;
		if (!BASE)
			text = p;
		else if (!showBase)
			text = p + ' against the baseline\'s ' + baseTree.total + UNIT +
				' (red: share grew, blue: shrank; ' + (removed.frames
				? goneText() + ': Baseline draws them)' : 'no frame only in the baseline)');
		else
			text = 'the baseline\'s ' + baseTree.total + UNIT + ' at its widths, against ' +
				p + ' (red: share grew, blue: shrank; ' + goneText() +
				'; frames only in the profile are not drawn: Profile draws them)';
		status.textContent = text + ', ' + (data.stacks.length ? '' : 'no stacks, ') +
			'click a frame to zoom';
	}
	showStatus();
	(function legend() {
		const l = document.getElementById('legend');
		const kinds = BASE ? [['share grew', 'hsl(0,85%,60%)'], ['shrank', 'hsl(220,85%,60%)'],
			['the same', 'hsl(0,0%,96%)'], ['search match', 'hsl(300,80%,60%)']]
			: [['JIT', 'hsl(115,55%,60%)'], ['native', 'hsl(35,85%,62%)'],
			['kernel', 'hsl(5,65%,66%)'], ['inlined', 'hsl(270,55%,70%)'],
			['anonymous', 'hsl(0,0%,75%)'], ['search match', 'hsl(300,80%,60%)']];
		for (const s of kinds) {
			const span = document.createElement('span');
			const sw = document.createElement('i');
			sw.style.background = s[1];
			span.appendChild(sw);
			span.appendChild(document.createTextNode(s[0]));
			l.appendChild(span);
		}
	})();
	// a graph taller than the window opens root first, on its widest
	// frames, rather than on a screen of its deepest ones
	if ((maxDepth + 1) * ROW > window.innerHeight - canvas.offsetTop) {
		icicle = true;
		document.getElementById('icicle').textContent = 'Flame';
	}
	drawStrip();
	showRange();
	const t0 = performance.now();
	draw();
	const firstDraw = performance.now();

	// For tests: #selftest[&search=RE][&zoom=NAME][&drag=A,B][&threads=1]
	// [&baseline=1[&bsearch=RE]] writes what the page drew, searched,
	// zoomed, dragged, drew by thread and of the baseline into the
	// element #selftest as JSON.
	if (/^#selftest/.test(location.hash)) {
		const args = new URLSearchParams(location.hash.slice(1));
		function shown() {
			return drawn.filter(function (d) { return d.f.code >= 0; })
				.map(function (d) {
					const o = { name: frameName(d.f), text: d.text,
						share: d.f.total / root.total, w: d.w };
					if (BASE) {
						o.samples = d.f.prof;
						o.self = d.f.profSelf;
						o.base = d.f.base;
						o.baseSelf = d.f.baseSelf;
						o.change = d.f.change;
						o.fill = d.fill;
						o.tip = describe(d.f);
					}
					return o;
				});
		}
		// each name's own samples in the whole profile and baseline
		function selfByName(f, side, m) {
			if (f.code >= 0 && f.self) {
				const n = frameName(f);
				m[n] = m[n] || [0, 0];
				m[n][side] += f.self;
			}
			f.kids.forEach(function (k) { selfByName(k, side, m); });
			return m;
		}
		const out = { total: prof.root.total, base: BASE && { total: baseTree.total,
				title: BASE.title, status: status.textContent,
				self: selfByName(baseTree, 1, selfByName(prof.root, 0, {})) },
			firstDrawMs: firstDraw - t0, scriptStartMs: tStart,
			parseMs: tParsed - tStart, treeMs: tTree - tParsed,
			loadToDrawMs: firstDraw, drawn: shown() };
		if (args.has('search')) {
			setSearch(args.get('search'));
			out.search = { matched: document.getElementById('matched').textContent,
				share: matchedSamples(root) / root.total,
				highlighted: drawn.filter(function (d) { return matches(d.f); }).length };
			setSearch('');
		}
		if (args.has('zoom')) {
			const d = drawn.find(function (d) { return d.f.code >= 0 &&
				frameName(d.f) === args.get('zoom'); });
			if (d) {
				const r = canvas.getBoundingClientRect();
				canvas.dispatchEvent(new MouseEvent('click', {
					clientX: r.left + d.x + d.w / 2, clientY: r.top + d.top + 2 }));
				out.zoom = { focus: frameName(focus), drawn: shown() };
				document.getElementById('reset').click();
				out.reset = { focus: frameName(focus), drawn: shown().length };
			} else
				out.zoom = null;
		}
		// baseline=1: the baseline's graph drawn (with bsearch=RE, searched)
		if (args.has('baseline') && !baseButton.hidden) {
			baseButton.click();
			out.baseline = { status: status.textContent, label: baseButton.textContent,
				total: root.total, drawn: shown() };
			if (args.has('bsearch')) {
				setSearch(args.get('bsearch'));
				out.baseline.matched = document.getElementById('matched').textContent;
				out.baseline.highlighted = drawn.filter(function (d) { return matches(d.f); })
					.map(function (d) { return frameName(d.f); });
				setSearch('');
			}
			baseButton.click();
			out.baseline.back = { total: root.total, drawn: shown().length,
				label: baseButton.textContent };
		}
		if (args.has('threads') && !threadsButton.hidden) {
			threadsButton.click();
			out.threads = { total: tlTotal, bars: tlDrawn.bars, rows: tlDrawn.rows };
			threadsButton.click();
		}
		out.timeline = TL ? { procs: TL.procs.length, buckets: tlBuckets,
			bucket_s: TL.bucket_s, total: tlTotal, bars: tlDrawn.bars,
			rows: tlDrawn.rows, shown: !document.getElementById('strip').hidden } : null;
		// drag=A,B: a drag on the strip from share A to share B of its width
		if (args.has('drag') && TL) {
			const ab = args.get('drag').split(',').map(Number);
			const r = tcanvas.getBoundingClientRect();
			const y = r.top + 5;
			const before = tcanvas.toDataURL();
			tcanvas.dispatchEvent(new MouseEvent('mousedown',
				{ bubbles: true, clientX: r.left + ab[0] * r.width, clientY: y }));
			window.dispatchEvent(new MouseEvent('mousemove',
				{ bubbles: true, clientX: r.left + ab[1] * r.width, clientY: y }));
			const up = performance.now();
			window.dispatchEvent(new MouseEvent('mouseup',
				{ bubbles: true, clientX: r.left + ab[1] * r.width, clientY: y }));
			const redrawMs = performance.now() - up;
			out.drag = showRange();
			if (out.drag) {
				out.drag.text = document.getElementById('rangetext').textContent;
				out.drag.shownCmd = document.getElementById('rangecmd').textContent;
				out.drag.stripChanged = tcanvas.toDataURL() !== before;
				out.drag.buckets = sel.slice();
				out.drag.redrawMs = redrawMs;
				out.drag.graph = { total: root.total, drawn: shown(),
					status: status.textContent };
				document.getElementById('reset').click();
				out.drag.reset = { total: root.total, range: sel,
					drawn: shown().length, rangeText: document.getElementById('rangetext').textContent };
			}
		}
		out.errors = check.errors;
		out.requests = check.requests;
		const pre = document.createElement('pre');
		pre.id = 'selftest';
		pre.textContent = JSON.stringify(out);
		document.body.appendChild(pre);
	}
})();
