// SPDX-License-Identifier: GPL-3.0-or-later
// The known call tree in JavaScript: main calls a() three times for each
// call of b(), both call hot() with the same work.  Run with
// --no-turbo-inlining so that a and b stay frames of their own.
'use strict';

let sink = 0;

function hot() {
	let s = 0;
	for (let i = 0; i < 200000; i++)
		s = (s + i * 7) % 1000003;
	sink += s;
}

function a() {
	hot();
}

function b() {
	hot();
}

// the process's CPU time in ms: the run's length is its own CPU time,
// not the clock's, so that on a busy machine it does the same work
function cpuMs() {
	const u = process.cpuUsage();
	return (u.user + u.system) / 1000;
}

function main(seconds) {
	const end = cpuMs() + seconds * 1000;
	while (cpuMs() < end) {
		a();
		a();
		a();
		b();
	}
}

main(Number(process.argv[2]) || 3);
console.log(sink > 0 ? 'calltree done' : 'impossible');
